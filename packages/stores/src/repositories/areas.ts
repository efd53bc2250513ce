import type { Queryable } from '../db.js';

/** The whole workspace, as an area: its `changes` is the number of changes, its terms their title frequencies. */
export const ROOT_AREA = '';

/**
 * The areas a change touches: each file path and every directory above it, directories with a trailing
 * slash (`src/language-js/print/key.js` -> `src/`, `src/language-js/`, `src/language-js/print/`, the file).
 */
export function areasOfFiles(files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const file of files) {
    const parts = file.split('/').filter(Boolean);
    if (parts.length === 0) continue;
    for (let depth = 1; depth < parts.length; depth++) out.add(`${parts.slice(0, depth).join('/')}/`);
    out.add(parts.join('/'));
  }
  return out;
}

/**
 * A workspace's area model, column-wise (rows cross a thread boundary cheaply this way), sorted by key:
 * each area and each term named once, the rows numbers into those names.
 */
export interface AreaModelColumns {
  /** Changes counted: the root area's size. */
  changes: number;
  /** Areas with the changes touching each, the root area included. */
  areaNames: readonly string[];
  areaChanges: ArrayLike<number>;
  /** The terms the rows name. */
  termNames: readonly string[];
  /** Row i: changes touching area `areaNames[termArea[i]]` whose title has term `termNames[termOf[i]]`. */
  termOf: ArrayLike<number>;
  termArea: ArrayLike<number>;
  termChanges: ArrayLike<number>;
}

export interface ChangeRow {
  id: string;
  title: string | null;
  files: string[];
}

/**
 * The workspace's changes in id order, `limit` after `afterId` ('' for the first page): pull requests,
 * issues and other items, and the commits no pull request contains (a commit folded into a PR would
 * count the PR's title twice).
 */
export async function listChangesPage(db: Queryable, workspaceId: string, afterId: string, limit: number): Promise<ChangeRow[]> {
  const res = await db.query<ChangeRow>(
    `SELECT i.id, i.title, i.files FROM items i
     WHERE i.workspace_id = $1 AND i.id > $2
       AND NOT (i.type = 'commit' AND EXISTS (SELECT 1 FROM edges e WHERE e.type = 'commit_pr' AND e.target_id = i.id))
     ORDER BY i.id LIMIT $3`,
    [workspaceId, afterId, limit],
  );
  return res.rows;
}

/** Rows a single statement of a build writes or prunes: small enough that no statement stalls the embedded database. */
export const AREA_SLICE = 2_000;

/** The live model's generation; readers read only its rows. */
const LIVE = '(SELECT generation FROM area_models WHERE workspace_id = $1)';

/**
 * A new, unpublished generation of a workspace's area model. Write its rows with `writeAreaModelRows`
 * (any number of calls, each one statement), then `publishAreaModel`. Readers go on reading the
 * published generation until then.
 */
export async function startAreaModel(db: Queryable): Promise<number> {
  const res = await db.query<{ g: string }>("SELECT nextval('area_model_generation')::text AS g");
  return Number(res.rows[0]!.g);
}

/** Adds areas (name, changes touching it) to an unpublished generation, in one statement. */
export async function writeAreas(db: Queryable, workspaceId: string, generation: number, names: readonly string[], changes: ArrayLike<number>): Promise<void> {
  if (names.length === 0) return;
  await db.query('INSERT INTO areas (workspace_id, generation, area, changes) SELECT $1, $2, a, n FROM unnest($3::text[], $4::int[]) AS t(a, n)', [
    workspaceId,
    generation,
    names,
    Array.from(changes),
  ]);
}

/**
 * Adds (term, area, changes) rows to an unpublished generation, in one statement: one row per term with
 * its areas and counts as two arrays. Every row of a term must come in the same call. One row a (term,
 * area) pair made the model a few million rows at 100k items (801 MB), written anew by every re-cluster.
 */
export async function writeAreaTerms(
  db: Queryable,
  workspaceId: string,
  generation: number,
  terms: readonly string[],
  areas: readonly string[],
  changes: ArrayLike<number>,
): Promise<void> {
  if (terms.length === 0) return;
  await db.query(
    `INSERT INTO area_term_lists (workspace_id, generation, term, areas, changes)
     SELECT $1, $2, t, array_agg(a ORDER BY o), array_agg(n ORDER BY o) FROM unnest($3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS x(t, a, n, o) GROUP BY t`,
    [workspaceId, generation, terms, areas, Array.from(changes)],
  );
}

/**
 * Makes a generation the live model in one statement: readers see the old model or the new one. A
 * generation older than the live one is not published (a slower build started before a newer one
 * finished); returns whether this one was.
 */
export async function publishAreaModel(db: Queryable, workspaceId: string, generation: number, changes: number): Promise<boolean> {
  const res = await db.query(
    `INSERT INTO area_models (workspace_id, generation, changes, built_at) VALUES ($1, $2, $3, clock_timestamp())
     ON CONFLICT (workspace_id) DO UPDATE SET generation = EXCLUDED.generation, changes = EXCLUDED.changes, built_at = EXCLUDED.built_at
     WHERE area_models.generation < EXCLUDED.generation`,
    [workspaceId, generation, changes],
  );
  return res.rowCount > 0;
}

/**
 * Deletes up to `limit` rows of generations older than the live one (a replaced model, or a build that
 * lost to a newer one); returns how many it deleted, so the caller repeats while it is `limit`. Without
 * a live model nothing is pruned.
 */
export async function pruneAreaModels(db: Queryable, workspaceId: string, limit = AREA_SLICE): Promise<number> {
  let deleted = 0;
  for (const table of ['area_term_lists', 'areas']) {
    const res = await db.query(
      `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE workspace_id = $1 AND generation < ${LIVE} LIMIT $2))`,
      [workspaceId, limit - deleted],
    );
    deleted += res.rowCount;
    if (deleted >= limit) break;
  }
  return deleted;
}

/**
 * Replaces a workspace's area model: writes a new generation in slices of `AREA_SLICE` rows, publishes
 * it and prunes the old one. `between` runs between statements (a yield to the event loop). Readers see
 * the old model or the new one. Returns whether this build was published (false when a newer one was).
 */
export async function replaceAreaModel(db: Queryable, workspaceId: string, model: AreaModelColumns, between: () => Promise<void> = async () => undefined): Promise<boolean> {
  const generation = await startAreaModel(db);
  const slice = <T>(list: ArrayLike<T>, i: number): T[] => Array.prototype.slice.call(list, i, i + AREA_SLICE) as T[];
  for (let i = 0; i < model.areaNames.length; i += AREA_SLICE) {
    await writeAreas(db, workspaceId, generation, slice(model.areaNames, i), slice(model.areaChanges, i));
    await between();
  }
  // Slices end where a term does (a term's rows go in one statement), so a slice can pass AREA_SLICE by one term's areas.
  const rows = termsTogether(model.termOf);
  for (let i = 0, end = 0; i < rows.length; i = end) {
    end = Math.min(i + AREA_SLICE, rows.length);
    while (end < rows.length && model.termOf[rows[end]!] === model.termOf[rows[end - 1]!]) end++;
    const part = rows.slice(i, end);
    await writeAreaTerms(
      db,
      workspaceId,
      generation,
      part.map((r) => model.termNames[model.termOf[r]!]!),
      part.map((r) => model.areaNames[model.termArea[r]!]!),
      part.map((r) => model.termChanges[r]!),
    );
    await between();
  }
  const published = await publishAreaModel(db, workspaceId, generation, model.changes);
  while ((await pruneAreaModels(db, workspaceId)) >= AREA_SLICE) await between();
  return published;
}

/** Row indices with each term's rows next to each other, in their order: as given when they already are (the model is built sorted by term). */
function termsTogether(terms: ArrayLike<number>): number[] {
  const rows = Array.from({ length: terms.length }, (_, i) => i);
  const ended = new Set<number>();
  for (let i = 1; i < terms.length; i++) {
    if (terms[i] === terms[i - 1]) continue;
    ended.add(terms[i - 1]!);
    if (!ended.has(terms[i]!)) continue;
    const byTerm = new Map<number, number[]>();
    rows.forEach((r) => (byTerm.get(terms[r]!) ?? byTerm.set(terms[r]!, []).get(terms[r]!)!).push(r));
    return [...byTerm.values()].flat();
  }
  return rows;
}

/** Which build of a workspace's area model is current, and how many changes it counted; null before the first. */
export async function getAreaModelVersion(db: Queryable, workspaceId: string): Promise<{ builtAt: number; changes: number } | null> {
  const res = await db.query<{ built_at: Date | string; changes: number }>('SELECT built_at, changes FROM area_models WHERE workspace_id = $1', [workspaceId]);
  const row = res.rows[0];
  return row ? { builtAt: new Date(row.built_at).getTime(), changes: Number(row.changes) } : null;
}

/** Changes touching each of the given areas; areas the model leaves out (one change or none) are absent. */
export async function getAreaSizes(db: Queryable, workspaceId: string, areas: readonly string[]): Promise<Map<string, number>> {
  if (areas.length === 0) return new Map();
  const res = await db.query<{ area: string; changes: number }>(`SELECT area, changes FROM areas WHERE workspace_id = $1 AND generation = ${LIVE} AND area = ANY($2::text[])`, [
    workspaceId,
    [...new Set(areas)],
  ]);
  return new Map(res.rows.map((r) => [r.area, Number(r.changes)]));
}

/** For each term, every area whose changes' titles hold it, with how many do (the root among them). */
export async function getTermAreas(db: Queryable, workspaceId: string, terms: readonly string[]): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>(terms.map((t) => [t, new Map()]));
  if (terms.length === 0) return out;
  const res = await db.query<{ term: string; areas: string[]; changes: number[] }>(
    `SELECT term, areas, changes FROM area_term_lists WHERE workspace_id = $1 AND generation = ${LIVE} AND term = ANY($2::text[])`,
    [workspaceId, [...new Set(terms)]],
  );
  for (const r of res.rows) {
    const byArea = out.get(r.term);
    if (byArea) r.areas.forEach((area, i) => byArea.set(area, Number(r.changes[i])));
  }
  return out;
}

export interface AreaCounts {
  /** Changes touching each requested area that the model holds (the root among them). */
  areas: Map<string, number>;
  /** Per area, changes whose title has each requested term (absent = 0). */
  terms: Map<string, Map<string, number>>;
}

/** The model's counts for the given areas and terms, read afresh; the root area is always read. */
export async function getAreaCounts(db: Queryable, workspaceId: string, areas: readonly string[], terms: readonly string[]): Promise<AreaCounts> {
  const sizes = await getAreaSizes(db, workspaceId, [ROOT_AREA, ...areas]);
  const out: AreaCounts = { areas: sizes, terms: new Map() };
  for (const [term, byArea] of await getTermAreas(db, workspaceId, terms)) {
    for (const [area, n] of byArea) {
      if (!sizes.has(area)) continue;
      (out.terms.get(area) ?? out.terms.set(area, new Map()).get(area)!).set(term, n);
    }
  }
  return out;
}
