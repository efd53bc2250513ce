import { actorDirectory, type Db, type SearchReadModel } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
import { AGGREGATE_STALENESS_FACTOR, cachedRead, DEFAULT_SNAPSHOT_STALENESS_MS } from './atRest.js';
import { timed, type PathResult } from './types.js';

const ROLE_WEIGHT: Record<string, number> = { author: 1, assignee: 0.8, reviewer: 0.6, creator: 0.6, committer: 0.4, merger: 0.3, commenter: 0.3 };

interface Directory {
  /** Identity value (login, name) -> actors. */
  named: Map<string, string[]>;
  /** Lower-cased expertise domain -> actors. */
  experts: Map<string, string[]>;
}

/**
 * Each workspace's people (identities and expertise domains). On the embedded default they come from a
 * snapshot kept near-real-time (`snapshotAtRest`): on an index at rest they are read once, not twice a
 * search, and during ingestion a search does not reload them. On a Postgres server, where other
 * processes write, they are read again after a minute.
 */
export function createActorDirectoryCache(db: Db, maxStaleMs = DEFAULT_SNAPSHOT_STALENESS_MS) {
  const readDirectory = (workspaceId: string): Promise<Directory> =>
    actorDirectory(db, workspaceId).then(({ identities, domains }) => {
      const named = new Map<string, string[]>();
      for (const { actorId, value } of identities) named.set(value, [...(named.get(value) ?? []), actorId]);
      const experts = new Map<string, string[]>();
      for (const { actorId, domains: list } of domains) for (const d of new Set(list.map((x) => x.toLowerCase()))) experts.set(d, [...(experts.get(d) ?? []), actorId]);
      return { named, experts };
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
    // Their newest items (from the read model: in memory on the embedded default, following every write).
    const rows = await read.itemsOfActors(filter, actorIds, input.k * 4);
    const scores = new Map<string, number>();
    for (const r of rows) {
      const s = (weight.get(r.actorId) ?? 0) * (ROLE_WEIGHT[r.role] ?? 0.3);
      if (s > (scores.get(r.id) ?? 0)) scores.set(r.id, s);
    }
    const top = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, input.k);
    return { scores: new Map(top) };
  }).then((r) => ({ ...r, actorIds }));
}
