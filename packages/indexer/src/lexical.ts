import { applyLexiconChange, getItemState, getSetting, listLexicalSources, lockItem, putSetting, replaceLexicalIndex, type Db, type LexicalFields } from '@engram/stores';
import { lexemeParts, pathWords } from '@engram/text';

/**
 * The version of what an item's lexical index holds. Bump it whenever the tokenizer (`@engram/text`) or
 * `lexicalFields` changes the terms an item gets: on start-up, `relexIfStale` rebuilds every item's
 * lexical index and the lexicon from the stored items, so queries (tokenized by the new code) meet
 * items tokenized the same way. 2: statement keywords and words inside identifiers kept, versions yield
 * their release lines, one-letter camelCase words split. 3: a fixture's tracker-id word (`issue-1234.js`)
 * no longer indexed as a path word (`pathWords`). 4: the words of a camelCase identifier (`new`, `express` of
 * `NewExpression`) go to their own field (D), weighed below a whole word. 5: a CI or test-runner file adds the
 * area it stands for to the paths field (`ci`, `test`: `pathAreaWords`).
 */
export const LEXICAL_VERSION = 5;
const LEXICAL_VERSION_SETTING = 'lexical_version';

/**
 * The weighted lexical fields of an item with the shared tokenizer (the one queries use): title (A),
 * body (B), file paths and labels (C), and the words of camelCase identifiers from any of them (D, see
 * `tokenizeParts`: the lexical path weighs a part below a whole word). Passed pre-tokenised so Postgres
 * only splits on spaces. A huge body (a build log) is cut so the tsvector stays under Postgres' 1 MB limit.
 */
export const MAX_BODY_TOKENS = 60_000;

export function lexicalFields(item: { title: string | null; body: string; files: readonly string[]; labels: readonly string[] }): LexicalFields {
  const title = lexemeParts(item.title ?? '');
  const body = lexemeParts(item.body);
  const bodyWhole = body.whole.slice(0, MAX_BODY_TOKENS);
  const bodyParts = body.parts.slice(0, Math.max(0, MAX_BODY_TOKENS - bodyWhole.length));
  const other: string[] = [];
  const parts: string[] = [...title.parts, ...bodyParts];
  const add = (text: string): void => {
    const words = lexemeParts(text);
    other.push(...words.whole);
    parts.push(...words.parts);
  };
  for (const file of item.files) add(pathWords(file));
  for (const label of item.labels) add(label);
  return {
    title: title.whole.join(' '),
    body: bodyWhole.join(' '),
    other: other.join(' '),
    parts: parts.join(' '),
    length: title.whole.length + bodyWhole.length + other.length + parts.length,
  };
}

/**
 * Rebuilds the lexical index of every item of a workspace from its stored title, body, files and labels,
 * and moves the lexicon's document frequencies with it. One item per transaction under its item lock, so
 * it runs beside live indexing; a crash part-way leaves each item either old or new, and running it again
 * converges (the lexicon delta is taken against the item's stored terms). Returns the items rebuilt.
 */
export async function relexWorkspace(db: Db, workspaceId: string, pageSize = 500): Promise<number> {
  let after: string | null = null;
  let done = 0;
  for (;;) {
    const page = await listLexicalSources(db, workspaceId, after, pageSize);
    if (page.length === 0) return done;
    for (const item of page) {
      await db.transaction(async (tx) => {
        await lockItem(tx, item.id);
        const before = await getItemState(tx, item.id);
        if (!before) return;
        const terms = await replaceLexicalIndex(tx, item.id, lexicalFields({ title: item.title, body: item.content, files: item.files, labels: item.labels }));
        if (terms) await applyLexiconChange(tx, workspaceId, before.terms, terms);
      });
      done++;
    }
    after = page[page.length - 1]!.id;
  }
}

/**
 * On start-up: when the stored lexical index was built by another LEXICAL_VERSION, rebuilds it for every
 * workspace, then records the version. An interrupted run is simply run again at the next start.
 * A fresh database records the version without work. Returns the items rebuilt per workspace.
 */
export async function relexIfStale(
  db: Db,
  workspaceIds: readonly string[],
  onStart: (from: number | null) => void = () => {},
): Promise<Map<string, number> | null> {
  const stored = await getSetting<number>(db, LEXICAL_VERSION_SETTING);
  if (stored === LEXICAL_VERSION) return null;
  if (workspaceIds.length > 0) onStart(stored);
  const rebuilt = new Map<string, number>();
  for (const ws of workspaceIds) rebuilt.set(ws, await relexWorkspace(db, ws));
  await putSetting(db, LEXICAL_VERSION_SETTING, LEXICAL_VERSION);
  return rebuilt;
}
