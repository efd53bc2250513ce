import { readCommitted, type Db } from '@engram/stores';

/** How stale a snapshot may be served while writes go on, by default (`SEARCH_CONTEXT_STALENESS_MS`). */
export const DEFAULT_SNAPSHOT_STALENESS_MS = 1_000;

/**
 * A per-workspace snapshot of what a path would otherwise read per query (cluster members, people's
 * items, the actor directory), on the embedded default only (this process is the only writer, so
 * `Db.writeCount` sees every write). On a Postgres server, where other processes write, `get` always
 * answers null and the path reads per query.
 *
 * Near-real-time, as a search engine's refresh interval is: a snapshot no write has followed is served
 * as is; one that writes have followed is still served while it is at most `maxStaleMs` old (its load
 * began no longer ago than that), and a reload starts in the background; past that bound `get` answers
 * null (the path reads per query, exact) until the reload lands. So a search during an import, an
 * expertise pass or a re-cluster never waits for a whole snapshot to load, nor reads per query while a
 * recent snapshot exists; and what it serves misses at most the last `maxStaleMs` of writes.
 *
 * Reloads are paced: the next one begins no sooner than four times the last one's duration after it
 * ended, so under a steady stream of writes reloading costs at most a fifth of the time (at 100k items
 * a load is a read of some 100k rows).
 */
export function snapshotAtRest<T>(db: Db, load: (workspaceId: string) => Promise<T>, maxStaleMs = DEFAULT_SNAPSHOT_STALENESS_MS) {
  type Loaded = { writes: number; startedAt: number; value: T };
  const loaded = new Map<string, Loaded>();
  const loading = new Map<string, Promise<void>>();
  const nextLoadAt = new Map<string, number>();

  const reload = (workspaceId: string): void => {
    if (loading.has(workspaceId) || performance.now() < (nextLoadAt.get(workspaceId) ?? 0)) return;
    const writes = db.writeCount();
    const startedAt = performance.now();
    // Committed rows only (a snapshot outlives the request that loads it).
    const done = readCommitted(() => load(workspaceId)).then(
      (value) => {
        const prev = loaded.get(workspaceId);
        if (!prev || prev.startedAt <= startedAt) loaded.set(workspaceId, { writes, startedAt, value });
      },
      () => undefined, // a failed load leaves the last snapshot (or none): the path reads per query meanwhile
    );
    loading.set(workspaceId, done);
    void done.finally(() => {
      const endedAt = performance.now();
      nextLoadAt.set(workspaceId, endedAt + 4 * (endedAt - startedAt));
      loading.delete(workspaceId);
    });
  };

  return {
    get(workspaceId: string): Promise<T> | null {
      if (db.kind !== 'pglite') return null;
      const hit = loaded.get(workspaceId);
      if (hit && hit.writes === db.writeCount()) return Promise.resolve(hit.value);
      reload(workspaceId);
      return hit && performance.now() - hit.startedAt <= maxStaleMs ? Promise.resolve(hit.value) : null;
    },
  };
}
