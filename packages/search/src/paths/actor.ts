import { actorDirectory, itemsOfActors, narrowsItems, type Db, type SearchReadModel } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
import { AGGREGATE_STALENESS_FACTOR, cachedRead, DEFAULT_SNAPSHOT_STALENESS_MS, derive, onFirstUse, type SharedSnapshots } from './atRest.js';
import { timed, type PathResult } from './types.js';

const ROLE_WEIGHT: Record<string, number> = { author: 1, assignee: 0.8, reviewer: 0.6, creator: 0.6, committer: 0.4, merger: 0.3, commenter: 0.3 };

interface Directory {
  /** Identity value (login, name) -> actors. */
  named: Map<string, string[]>;
  /** Lower-cased expertise domain -> actors. */
  experts: Map<string, string[]>;
  /** Each actor's (item, role) rows, newest first, while the index is at rest; else read per query. */
  items(read: SearchReadModel, filter: ItemFilter, actorIds: readonly string[], limit: number): Promise<Omit<ActorItem, 'occurredAt'>[]>;
}

export interface ActorItem {
  id: string;
  actor_id: string;
  role: string;
  occurredAt: number;
}

/** Newest first; ties by item id, then role (the per-query read orders the same way). */
const newestFirst = (a: ActorItem, b: ActorItem): number => b.occurredAt - a.occurredAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : a.role < b.role ? -1 : a.role > b.role ? 1 : 0);

/** The first `limit` rows of the union of `lists`, each newest first: a merge that reads at most `limit` of each. */
export function mergeNewest<T extends ActorItem>(lists: readonly (readonly T[])[], limit: number): T[] {
  const heads = lists.map(() => 0);
  const out: T[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      if (heads[i]! >= lists[i]!.length) continue;
      if (best < 0 || newestFirst(lists[i]![heads[i]!]!, lists[best]![heads[best]!]!) < 0) best = i;
    }
    if (best < 0) break;
    out.push(lists[best]![heads[best]!++]!);
  }
  return out;
}

/** The first `limit` rows of `rows` whose item passes, asking `passes` a page of `limit` rows at a time. */
async function firstPassing<T extends ActorItem>(rows: readonly T[], limit: number, passes: (ids: string[]) => Promise<ReadonlyMap<string, unknown>>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < rows.length && out.length < limit; start += limit) {
    const page = rows.slice(start, start + limit);
    const ok = await passes([...new Set(page.map((r) => r.id))]);
    for (const r of page) if (ok.has(r.id) && out.length < limit) out.push(r);
  }
  return out;
}

/**
 * Each workspace's people (identities and expertise domains). On the embedded default they come from a
 * snapshot kept near-real-time (`snapshotAtRest`): on an index at rest they are read once, not twice a
 * search, and during ingestion a search does not reload them. On a Postgres server, where other
 * processes write, they are read again after a minute.
 */
export function createActorDirectoryCache(db: Db, shared: SharedSnapshots, maxStaleMs = DEFAULT_SNAPSHOT_STALENESS_MS) {
  // A person's rows are built when a search first asks for them in this snapshot: a search names a few
  // people, and building everyone's (155k rows at 100k items) held the event loop for up to 0.4 s after
  // each reload during an import.
  const itemsByActor = derive(shared.actorItems, (actors) => {
    const runs = new Map(actors.map((a) => [a.actorId, a]));
    return onFirstUse((actorId: string): ActorItem[] => {
      const run = runs.get(actorId);
      // Read newest first; the sort (a merge of one run) only settles ties within a millisecond as the per-query read does.
      return run ? run.ids.map((id, i) => ({ id, actor_id: actorId, role: run.roles[i]!, occurredAt: run.occurredAt[i]! })).sort(newestFirst) : [];
    });
  });
  const items: Directory['items'] = async (read, filter, actorIds, limit) => {
    const snapshot = itemsByActor.get(filter.workspaceId);
    if (!snapshot) return itemsOfActors(db, filter, actorIds, limit);
    const rowsOf = await snapshot;
    const n = Math.floor(limit);
    const lists = [...new Set(actorIds)].map(rowsOf);
    // Each list is newest first, so the newest `n` of their union are among the first `n` of each: at
    // 100k items a prolific author has thousands of rows, and sorting every row of five such people cost
    // more than the rest of the path.
    if (!narrowsItems(filter)) return mergeNewest(lists, n);
    const passing = await Promise.all(lists.map((rows) => firstPassing(rows, n, (ids) => read.poolRows(filter, ids))));
    return mergeNewest(passing, n);
  };
  const readDirectory = (workspaceId: string): Promise<Directory> =>
    actorDirectory(db, workspaceId).then(({ identities, domains }) => {
      const named = new Map<string, string[]>();
      for (const { actorId, value } of identities) named.set(value, [...(named.get(value) ?? []), actorId]);
      const experts = new Map<string, string[]>();
      for (const { actorId, domains: list } of domains) for (const d of new Set(list.map((x) => x.toLowerCase()))) experts.set(d, [...(experts.get(d) ?? []), actorId]);
      return { named, experts, items };
    });
  return cachedRead(db, readDirectory, { maxStaleMs: AGGREGATE_STALENESS_FACTOR * maxStaleMs, tables: ['actors', 'actor_identities'], serverTtlMs: 60_000 });
}
export type ActorDirectoryCache = ReturnType<typeof createActorDirectoryCache>;

/**
 * The actor path. Two signals: a person the query names (`@kovsu`, "fisker's change") -> what they
 * authored, reviewed or were assigned; and people whose expertise matches the query's terms -> their
 * work on those terms. Returns the matched actors too, for `context.relevantActors`.
 */
export function actorPath(
  read: SearchReadModel,
  directoryOf: ActorDirectoryCache,
  filter: ItemFilter,
  input: { terms: string[]; words: string[]; k: number },
): Promise<PathResult & { actorIds: string[] }> {
  let actorIds: string[] = [];
  return timed(async () => {
    const directory = await directoryOf(filter.workspaceId);
    const named = new Set(input.words.flatMap((w) => directory.named.get(w) ?? []));
    // People whose expertise domains hold most of the query's terms: the five with the most.
    const hits = new Map<string, number>();
    for (const t of new Set(input.terms)) for (const id of directory.experts.get(t) ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
    const expert = [...hits].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
    const weight = new Map<string, number>();
    for (const id of named) weight.set(id, 1);
    for (const [id, n] of expert) if (!weight.has(id)) weight.set(id, Math.min(0.5, 0.2 * n));
    actorIds = [...weight.keys()];
    if (actorIds.length === 0) return { scores: new Map() };
    const rows = await directory.items(read, filter, actorIds, input.k * 4);
    const scores = new Map<string, number>();
    for (const r of rows) {
      const s = (weight.get(r.actor_id) ?? 0) * (ROLE_WEIGHT[r.role] ?? 0.3);
      if (s > (scores.get(r.id) ?? 0)) scores.set(r.id, s);
    }
    const top = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, input.k);
    return { scores: new Map(top) };
  }).then((r) => ({ ...r, actorIds }));
}
