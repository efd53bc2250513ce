import { isAutomationName } from '@engram/contracts';
import { countActorItems, loadActorRoles, loadClusterKeywordsOfItems, loadExpertiseActors, saveActorExpertise, type ActorExpertiseUpdate, type Queryable, type SearchReadModel } from '@engram/stores';
import { titleKeywords } from '../entities/keywords.js';
import { inverseDocumentFrequency, type TopicalEntity } from '../clusters/features.js';
import { countItems, loadItemTexts, loadTopicalEntities } from '../clusters/itemTopics.js';
import { yieldToLoop } from '../clusters/offThread.js';
import { areaOfPath, canonicalLanguage, displayDomain, topicalKeyword, topicalLabel } from './domains.js';

/**
 * What each actor knows about, as a handful of topics a reader recognises ("Markdown", "cli",
 * "TypeScript decorators"), from what they authored (weight 1), reviewed (0.6) and committed or merged
 * (0.4). Every entity of an item is turned into a domain first (`domains.ts`): a path into the area it
 * names, a language, file extension or label into its canonical name, a title keyword or cluster keyword
 * into its topical words. The domains of one item are collapsed (an item counts once per domain) and
 * weighted by their IDF in the workspace, so an area everyone touches says little. Keywords, packages
 * and cluster topics count only when at least two of the person's items carry them. Bots keep their row
 * and item count but get no expertise. `docs/indexing.md` describes the rule.
 */
const ROLE_WEIGHT: Readonly<Record<string, number>> = {
  author: 1, creator: 1, reviewer: 0.6, assignee: 0.5, merger: 0.4, committer: 0.4, commenter: 0.3,
};

export type ExpertiseKind = 'area' | 'language' | 'package' | 'label' | 'keyword' | 'topic';

const KIND_WEIGHT: Readonly<Record<ExpertiseKind, number>> = {
  area: 1, language: 1, label: 0.6, package: 0.5, keyword: 0.5, topic: 0.4,
};

/** A sub-area (`typescript decorators`) is more specific than its area and counts a little less. */
const SUB_AREA_WEIGHT = 0.7;

/** Kinds that a single item cannot make into somebody's expertise. */
const NEEDS_SUPPORT: ReadonlySet<ExpertiseKind> = new Set(['keyword', 'package', 'topic']);

/** Domains shown per person (`expertise_domains`). */
export const EXPERTISE_DOMAINS = 5;
const EXPERTISE_KEPT = 20;
/** Finer areas of one area shown at most. */
const MAX_FINER_AREAS = 2;
/** A domain below this share of the person's best one is not shown. */
const MIN_RELATIVE_SCORE = 0.1;
/** A cluster topic counts only for clusters this big; a singleton's topic is just one title. */
const MIN_TOPIC_CLUSTER = 3;
/**
 * A title keyword names a domain only when at least this many changes of the workspace carry it: a word
 * in one or two ("linkfix", a misspelling, a one-off name) has the highest idf of all and read as junk
 * at the top of a person's domains. A small workspace asks less (one item per 500, at least one).
 */
export const MIN_KEYWORD_ITEMS = 4;
const minKeywordItems = (itemCount: number): number => Math.min(MIN_KEYWORD_ITEMS, Math.max(1, Math.ceil(itemCount / 500)));

export interface ExpertiseEntry {
  domain: string;
  score: number;
  kind: ExpertiseKind;
}

/** An actor any of whose logins or names says automation (`isAutomationName`); the indexer's `is_bot` flag is read beside it. */
export const isBot = (names: readonly string[]): boolean => names.some((n) => isAutomationName(n));

interface ItemDomain {
  key: string;
  kind: ExpertiseKind;
  /** Confidence x kind weight, the best of the entities that named it. */
  weight: number;
  idf: number;
}

/** The domains one item is about, collapsed: one entry per domain, its best weight and lowest IDF. */
export function itemDomains(entities: readonly TopicalEntity[], clusterKeywords: { keywords: readonly string[]; idf: number } | undefined, itemCount: number): ItemDomain[] {
  const out = new Map<string, ItemDomain>();
  const add = (key: string | null | undefined, kind: ExpertiseKind, weight: number, idf: number): void => {
    if (!key) return;
    const before = out.get(key);
    if (!before) out.set(key, { key, kind, weight, idf });
    else out.set(key, { key, kind: before.weight >= weight ? before.kind : kind, weight: Math.max(before.weight, weight), idf: Math.min(before.idf, idf) });
  };
  for (const e of entities) {
    const w = e.confidence;
    if (e.category === 'path') {
      const area = areaOfPath(e.key);
      add(area?.area, 'area', w * KIND_WEIGHT.area, e.idf);
      add(area?.subArea, 'area', w * KIND_WEIGHT.area * SUB_AREA_WEIGHT, e.idf);
    } else if (e.category === 'language') add(canonicalLanguage(e.key) ?? e.key.toLowerCase(), 'language', w * KIND_WEIGHT.language, e.idf);
    else if (e.category === 'label') add(topicalLabel(e.key), 'label', w * KIND_WEIGHT.label, e.idf);
    else if (e.category === 'package') add(e.key.toLowerCase().replace(/^@[^/]+\//, ''), 'package', w * KIND_WEIGHT.package, e.idf);
    else if (e.itemCount >= minKeywordItems(itemCount)) add(keywordDomain(e.key), 'keyword', w * KIND_WEIGHT.keyword, e.idf);
  }
  // The cluster's first keyword that reads as a topic (a path becomes its area).
  for (const keyword of clusterKeywords?.keywords ?? []) {
    const key = keyword.includes('/') ? areaOfPath(keyword)?.area : keywordDomain(keyword);
    if (!key) continue;
    add(key, 'topic', KIND_WEIGHT.topic, clusterKeywords?.idf ?? inverseDocumentFrequency(itemCount, itemCount));
    break;
  }
  return [...out.values()];
}

/** A keyword as a domain: its topical words; a language word is the language; a path its area. */
function keywordDomain(keyword: string): string | null {
  if (keyword.includes('/')) return areaOfPath(keyword)?.area ?? null;
  const words = topicalKeyword(keyword);
  return words === null ? null : (canonicalLanguage(words) ?? words);
}

/**
 * Recomputes expertise of the given actors (all of the workspace's when omitted); returns how many were
 * updated. `itemCount`: the workspace's item count (the IDF's N) when the caller has one, else counted.
 * `read`: where people's items, items' entity mentions and the item count are read (the search's read
 * model holds them in memory on the embedded default); default SQL.
 */
export async function refreshExpertise(
  db: Queryable,
  workspaceId: string,
  actorIds?: string[],
  options: {
    itemCount?: number;
    read?: Pick<SearchReadModel, 'itemMentions' | 'stats' | 'rolesOfActors' | 'actorItemCounts'>;
    /** Items whose entities and cluster keywords are read (and held) at a time (default ITEMS_PAGE). */
    itemsPerRead?: number;
  } = {},
): Promise<number> {
  const actors = await loadExpertiseActors(db, workspaceId, actorIds);
  if (actors.length === 0) return 0;
  // Bots get no expertise, so their items are counted, not read: a bot is often the workspace's most
  // prolific actor (at 100k generated items one holds 47,701 of 155,140 roles), and reading its items'
  // entities made a pass over it the longest statements of an import's settling.
  const botIds = actors.filter((a) => a.flagged || isBot(a.names)).map((a) => a.id);
  const bots = new Set(botIds);
  const botItems = await (options.read ? options.read.actorItemCounts(workspaceId, botIds) : countActorItems(db, workspaceId, botIds));
  const people = actors.filter((a) => !bots.has(a.id)).map((a) => a.id);
  // From the read model where given (in memory on the embedded default): a prolific author's roles were
  // one statement of tens of thousands of rows (0.3 s of the database's one connection at 100k items,
  // with every search's read waiting behind it).
  const roles = options.read ? await options.read.rolesOfActors(workspaceId, people) : await loadActorRoles(db, workspaceId, people);
  const involvement = new Map<string, Map<string, { weight: number; authored: boolean }>>();
  for (const [i, r] of roles.entries()) {
    if (i > 0 && i % (20 * ITEMS_BETWEEN_YIELDS) === 0) await yieldToLoop();
    const items = involvement.get(r.actorId) ?? new Map<string, { weight: number; authored: boolean }>();
    const before = items.get(r.itemId) ?? { weight: 0, authored: false };
    const weight = ROLE_WEIGHT[r.role] ?? 0.3;
    items.set(r.itemId, { weight: Math.max(before.weight, weight), authored: before.authored || weight === 1 });
    involvement.set(r.actorId, items);
  }
  const itemCount = options.itemCount ?? (await countItems(options.read ?? db, workspaceId));
  // Each item's people, with how each took part and where the item stands among the person's own items,
  // so that an item's domains go to all of them at once.
  const peopleOf = new Map<string, { actorId: string; weight: number; rank: number }[]>();
  for (const [actorId, items] of involvement) {
    let rank = 0;
    for (const [itemId, { weight }] of items) {
      const person = { actorId, weight, rank: rank++ };
      const list = peopleOf.get(itemId);
      if (list) list.push(person);
      else peopleOf.set(itemId, [person]);
    }
  }
  const itemIds = [...peopleOf.keys()];
  // Each person's domains, summed over their items. Items are read and turned into domains a page at a
  // time, and a page's entities and domains are dropped once added: a pass over prolific authors at the
  // end of an import read tens of thousands of items' entities, and holding them all (with each item's
  // domains) raised the event loop's heap by ~100 MB at 100k items under 16 searching clients, which the
  // resident set kept. A domain's kind is the one its person's first item gave it (an area before a
  // language of the same name, say), as when each person's items were read in their own order: `first`
  // is that item's rank.
  const scoresOf = new Map<string, Map<string, { entry: ExpertiseEntry; support: number; first: number }>>();
  let scored = 0;
  const perRead = Math.max(1, Math.floor(options.itemsPerRead ?? ITEMS_PAGE));
  for (let start = 0; start < itemIds.length; start += perRead) {
    const page = itemIds.slice(start, start + perRead);
    const entities = await loadTopicalEntities(options.read ?? db, workspaceId, page, itemCount);
    const clusters = new Map(
      (await loadClusterKeywordsOfItems(db, page, MIN_TOPIC_CLUSTER)).map((c) => [c.itemId, { keywords: c.keywords, idf: inverseDocumentFrequency(itemCount, c.memberCount) }]),
    );
    for (const id of page) {
      const domains = itemDomains(entities.get(id) ?? [], clusters.get(id), itemCount);
      for (const { actorId, weight, rank } of peopleOf.get(id)!) {
        // Within a person's items too: a prolific author's thousands of items were one run of the loop.
        if (++scored >= ITEMS_BETWEEN_YIELDS) {
          scored = 0;
          await yieldToLoop();
        }
        let scores = scoresOf.get(actorId);
        if (!scores) scoresOf.set(actorId, (scores = new Map()));
        // An item about twenty areas must not outweigh a few focused ones.
        const share = weight / Math.sqrt(Math.max(1, domains.length));
        for (const d of domains) {
          let slot = scores.get(d.key);
          if (!slot) scores.set(d.key, (slot = { entry: { domain: d.key, kind: d.kind, score: 0 }, support: 0, first: rank }));
          else if (rank < slot.first) {
            slot.entry.kind = d.kind;
            slot.first = rank;
          }
          slot.entry.score += share * d.weight * d.idf;
          slot.support += 1;
        }
      }
    }
  }

  const updates: ActorExpertiseUpdate[] = [];
  for (const actor of actors) {
    if (bots.has(actor.id)) {
      updates.push({ id: actor.id, expertise: [], domains: [], itemCount: botItems.get(actor.id) ?? 0 });
      continue;
    }
    const items = involvement.get(actor.id) ?? new Map<string, { weight: number; authored: boolean }>();
    const scores = scoresOf.get(actor.id) ?? new Map<string, { entry: ExpertiseEntry; support: number; first: number }>();
    const supported = [...scores.values()].filter((s) => !NEEDS_SUPPORT.has(s.entry.kind) || s.support >= 2).map((s) => s.entry);
    let expertise = rank(supported);
    if (expertise.length === 0 && [...items.values()].some((i) => i.authored)) expertise = await fallback(db, [...items.keys()]);
    updates.push({ id: actor.id, expertise: expertise.slice(0, EXPERTISE_KEPT).map((e) => ({ ...e, domain: displayDomain(e.domain) })), domains: readableDomains(expertise), itemCount: items.size });
  }
  await saveActorExpertise(db, updates);
  return updates.length;
}

/**
 * Items whose domains are worked out (and item roles scored) between two turns of the event loop. A pass
 * over 200 people's items turned them all into domains in one synchronous run: at 100k items, during an
 * import, that held the event loop (and `/healthz`) for 2.4 s (`bench/results/scale-2026-11-26-s11.md`,
 * section 9).
 */
const ITEMS_BETWEEN_YIELDS = 500;
/** Items whose entities and cluster keywords one step of a pass reads (and holds) at a time. */
const ITEMS_PAGE = 2_000;

function rank(entries: readonly ExpertiseEntry[]): ExpertiseEntry[] {
  const list = entries.filter((e) => e.score > 0).sort((a, b) => b.score - a.score || a.domain.localeCompare(b.domain));
  const top = list[0]?.score ?? 1;
  return list.map((e) => ({ ...e, score: Math.round((e.score / top) * 1000) / 1000 }));
}

/**
 * The best few domains, leaving out one whose words a domain already shown covers (`decorators` after
 * `TypeScript decorators`) and a third finer area of one language (`Markdown list` after `Markdown link`
 * and `Markdown liquid`), so a handful says more than one thing.
 */
export function readableDomains(expertise: readonly ExpertiseEntry[], limit = EXPERTISE_DOMAINS): string[] {
  const chosen: string[][] = [];
  for (const { domain, score } of expertise) {
    if (chosen.length >= limit || score < MIN_RELATIVE_SCORE) break;
    const words = domain.split(' ');
    if (chosen.some((c) => words.every((w) => c.includes(w)))) continue;
    const head = words[0];
    if (words.length > 1 && chosen.filter((c) => c.length > 1 && c[0] === head).length >= MAX_FINER_AREAS) continue;
    chosen.push(words);
  }
  return chosen.map((words) => displayDomain(words.join(' ')));
}

/** When no entity says anything, the topical words of the actor's own titles do (never an empty profile). */
async function fallback(db: Queryable, itemIds: string[]): Promise<ExpertiseEntry[]> {
  const scores = new Map<string, ExpertiseEntry>();
  for (const { title } of (await loadItemTexts(db, itemIds)).values()) {
    const words = titleKeywords(title).flatMap((k) => topicalKeyword(k.keyword) ?? []);
    const picked = words.length > 0 ? words : title.toLowerCase().split(/\s+/).flatMap((w) => (w.length > 2 ? (topicalKeyword(w) ?? []) : [])).slice(0, 3);
    for (const word of new Set(picked)) {
      const entry = scores.get(word) ?? { domain: word, kind: 'keyword' as const, score: 0 };
      entry.score += 1;
      scores.set(word, entry);
    }
  }
  return rank([...scores.values()]);
}
