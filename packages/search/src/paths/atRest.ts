import { setImmediate as nextTurn } from 'node:timers/promises';
import { clusterMembership, readCommitted, runInBackground, tableChanges, type Db } from '@engram/stores';

/** How stale a snapshot may be served while writes go on, by default (`SEARCH_CONTEXT_STALENESS_MS`). */
export const DEFAULT_SNAPSHOT_STALENESS_MS = 1_000;

/**
 * A per-workspace snapshot of what a path would otherwise read per query (cluster members, cluster and
 * person cards, the actor directory), following writes to the `tables` it is read from (`tableChanges`:
 * on the embedded default this process's writes, exact; on a Postgres server, where other processes
 * write, also the server's statistics, which show another process's write within about a second).
 *
 * Near-real-time, as a search engine's refresh interval is: a snapshot no write has followed is served
 * as is; one that writes have followed is still served while it is at most `maxStaleMs` stale (it was last
 * known current, when its load began or when a search last found no write since, no longer ago than
 * that), or six times as long as a load takes when that is more (a paced reload
 * cannot keep a slow load's snapshot fresher: `PACED_RELOAD_SPAN`; `maxStaleMs` 0 stays exact), and a
 * reload starts in the background; past that bound `get` answers
 * null (the path reads per query, exact) until the reload lands (`cachedRead`, whose per-query read is
 * the whole load, waits for a shared load instead). So a search during an import, an
 * expertise pass or a re-cluster never waits for a whole snapshot to load, nor reads per query while a
 * recent snapshot exists; and what it serves misses at most the last `maxStaleMs` of writes (six loads'
 * time, where that is more).
 *
 * Reloads are background work (an API request's statements go first) and paced: the next one begins no
 * sooner than half the bound, nor than four times the last one's duration, after it ended, so under a
 * steady stream of writes reloading costs at most a fifth of the time (at 100k items a load is a read of
 * some 100k rows).
 */
export function snapshotAtRest<T>(
  db: Db,
  load: (workspaceId: string) => Promise<T>,
  options: { maxStaleMs?: number | undefined; tables: readonly string[] },
): Snapshot<T> {
  const snapshot = followedSnapshot(db, load, options);
  return { get: (workspaceId) => snapshot.get(workspaceId, false) };
}

/** A background reload begins no sooner than this many times the last load's duration after it ended. */
const RELOAD_PACE = 4;

/**
 * How stale, in loads' time, a snapshot may be served while writes go on, when loads are slow enough that
 * the staleness bound cannot be kept: a paced reload lands at most 1 + RELOAD_PACE + 1 loads' time after
 * the snapshot it replaces began loading. Past the bound a path reads per query, and at 100k items during
 * an import a load of people's items (since moved into the read model) took up to 1.4 s, so every search
 * read people's items, cluster members and both context cards per query: 19 of the database thread's 45
 * busy seconds in 70 s of an import under 16 clients, with the import's writes queued behind them.
 */
const PACED_RELOAD_SPAN = 2 + RELOAD_PACE;

/**
 * `snapshotAtRest`'s engine. With `wait`, past the staleness bound a caller is answered with a load that
 * began within the bound (the one in flight, or one begun for it) instead of null: for a read whose
 * per-query form is the whole load, so that callers share one load instead of each running its own.
 */
function followedSnapshot<T>(db: Db, load: (workspaceId: string) => Promise<T>, options: { maxStaleMs?: number | undefined; tables: readonly string[] }) {
  const { maxStaleMs = DEFAULT_SNAPSHOT_STALENESS_MS, tables } = options;
  const changes = tableChanges(db);
  const writeCount = (): number => changes(tables);
  /**
   * `freshAt`: when the snapshot was last known to hold every write (its load's start, then each `get` that
   * finds no write since), so what it serves misses at most `now - freshAt` of writes. Measured from its
   * load's start instead, a snapshot loaded a minute before an import began was past the bound at the
   * import's first write: searches read per query, or (`cachedRead`) waited for a reload that reads
   * committed rows only, behind the import's open transaction.
   */
  type Loaded = { writes: number; startedAt: number; freshAt: number; value: T };
  type Loading = { startedAt: number; value: Promise<T> };
  const loaded = new Map<string, Loaded>();
  const loading = new Map<string, Loading>();
  const nextLoadAt = new Map<string, number>();
  /** How long a load takes: the last one's time, or half the previous figure when that is more (a slow load is remembered a while). */
  const loadMs = new Map<string, number>();
  /** How old a snapshot may be when served: the bound, or what a paced reload can keep up with (see `PACED_RELOAD_SPAN`). */
  const staleBound = (workspaceId: string): number => (maxStaleMs === 0 ? 0 : Math.max(maxStaleMs, PACED_RELOAD_SPAN * (loadMs.get(workspaceId) ?? 0)));

  /** The load in flight, or a new one (not before the pacing allows, unless `waitedFor`); one at a time. */
  const reload = (workspaceId: string, waitedFor: boolean): Loading | undefined => {
    const current = loading.get(workspaceId);
    if (current) return current;
    if (!waitedFor && performance.now() < (nextLoadAt.get(workspaceId) ?? 0)) return undefined;
    const writes = writeCount();
    const startedAt = performance.now();
    // Its reads see committed rows only. A load nobody waits for is background work (an API request's
    // statements go first); one a search waits for keeps the search's place.
    const value = waitedFor ? readCommitted(() => load(workspaceId)) : runInBackground(() => load(workspaceId));
    const entry = { startedAt, value };
    loading.set(workspaceId, entry);
    // Settled in the first handler on `value`, so a caller that chains on it finds this load done.
    const settle = (): void => {
      const endedAt = performance.now();
      const took = endedAt - startedAt;
      loadMs.set(workspaceId, Math.max(took, (loadMs.get(workspaceId) ?? 0) / 2));
      nextLoadAt.set(workspaceId, endedAt + Math.max(maxStaleMs / 2, RELOAD_PACE * took));
      if (loading.get(workspaceId) === entry) loading.delete(workspaceId);
    };
    value.then(
      (v) => {
        settle();
        const prev = loaded.get(workspaceId);
        if (!prev || prev.startedAt <= startedAt) loaded.set(workspaceId, { writes, startedAt, freshAt: startedAt, value: v });
      },
      settle, // a failed load leaves the last snapshot (or none); a caller waiting for it gets the error
    );
    return entry;
  };

  return {
    get(workspaceId: string, wait: boolean): Promise<T> | null {
      const hit = loaded.get(workspaceId);
      const now = performance.now();
      if (hit && hit.writes === writeCount()) {
        hit.freshAt = now;
        return Promise.resolve(hit.value);
      }
      const pending = reload(workspaceId, false);
      const bound = staleBound(workspaceId);
      if (hit && now - hit.freshAt < bound) return Promise.resolve(hit.value);
      if (!wait) return null;
      if (pending && now - pending.startedAt < bound) return pending.value;
      // The load in flight began too long ago: after it, one more, shared by every caller waiting meanwhile.
      if (pending) return pending.value.catch(() => undefined).then(() => reload(workspaceId, true)!.value);
      return reload(workspaceId, true)!.value;
    },
  };
}

/**
 * A per-workspace read that is always answered: on the embedded default from a near-real-time snapshot
 * following `tables` (past the staleness bound, from a load begun within it, which every search that
 * asks meanwhile shares); on a Postgres server, where other processes write, from a copy read again
 * after `serverTtlMs`.
 */
export function cachedRead<T>(
  db: Db,
  load: (workspaceId: string) => Promise<T>,
  options: { maxStaleMs?: number | undefined; tables: readonly string[]; serverTtlMs: number },
): (workspaceId: string) => Promise<T> {
  const snapshot = followedSnapshot(db, load, options);
  const copies = new Map<string, { at: number; value: Promise<T> }>();
  return (workspaceId) => {
    if (db.kind === 'pglite') return snapshot.get(workspaceId, true)!;
    const hit = copies.get(workspaceId);
    if (hit && Date.now() - hit.at < options.serverTtlMs) return hit.value;
    const value = load(workspaceId);
    copies.set(workspaceId, { at: Date.now(), value });
    value.catch(() => copies.delete(workspaceId));
    return value;
  };
}

/** A per-workspace snapshot: its value, or null when the caller must read per query. */
export interface Snapshot<T> {
  get(workspaceId: string): Promise<T> | null;
}

/**
 * How much staler than the search context (`maxStaleMs`) a read of aggregates may be served while writes go
 * on: the cluster centroids and the people directory (10 s at the default 1 s, exact at 0). A centroid is
 * its members' mean and a person's expertise a summary of their history, so a batch of new items moves
 * them by a sliver; and they hide no item, which the other paths find. At the context's bound a search
 * past it waited for their reload behind an import's writes: at 100k items under 16 clients, 17 centroid
 * and 9 directory waits in two minutes, 0.2-1 s each, with every search behind it in the gate.
 */
export const AGGREGATE_STALENESS_FACTOR = 10;

/**
 * `build(key)`, computed once per key when first asked: a view derived from a snapshot of which a search
 * reads a few keys (a cluster's members), not built whole after every reload.
 */
export function onFirstUse<K, V>(build: (key: K) => V): (key: K) => V {
  const built = new Map<K, V>();
  return (key) => {
    let value = built.get(key);
    if (value === undefined) built.set(key, (value = build(key)));
    return value;
  };
}

/** What `fn` derives from a snapshot, computed once per loaded value. */
export function derive<T extends object, U>(source: Snapshot<T>, fn: (value: T) => U): Snapshot<U> {
  const derived = new WeakMap<T, U>();
  return {
    get(workspaceId) {
      const value = source.get(workspaceId);
      return (
        value?.then((v) => {
          if (!derived.has(v)) derived.set(v, fn(v));
          return derived.get(v)!;
        }) ?? null
      );
    },
  };
}

/** Every cluster's members, and each member's cluster. */
export interface ClusterMembership {
  clusters: Awaited<ReturnType<typeof clusterMembership>>;
  clusterOf: ReadonlyMap<string, string>;
}

/**
 * Members indexed between two turns of the event loop while a membership snapshot is loaded: the 100k
 * members of a 100k-item workspace indexed at once were one run of ~0.3 s on the event loop under 16
 * searching clients, after every reload during an import.
 */
const MEMBERS_BETWEEN_TURNS = 10_000;

async function loadMembership(db: Db, workspaceId: string): Promise<ClusterMembership> {
  const clusters = await clusterMembership(db, workspaceId);
  const clusterOf = new Map<string, string>();
  let since = 0;
  for (const { clusterId, ids } of clusters) {
    for (const id of ids) clusterOf.set(id, clusterId);
    if ((since += ids.length) >= MEMBERS_BETWEEN_TURNS) {
      since = 0;
      await nextTurn();
    }
  }
  return { clusters, clusterOf };
}

/** The snapshots of whole tables that several paths derive from, loaded once for all of them. */
export function sharedSnapshots(db: Db, maxStaleMs?: number) {
  return {
    /** Every cluster member of the workspace. */
    clusterMembership: snapshotAtRest(db, (workspaceId) => loadMembership(db, workspaceId), { maxStaleMs, tables: ['cluster_members'] }),
  };
}
export type SharedSnapshots = ReturnType<typeof sharedSnapshots>;
