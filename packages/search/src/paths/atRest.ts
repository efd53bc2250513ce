import type { Db } from '@engram/stores';

/**
 * A per-workspace snapshot of what a path would otherwise read per query (cluster members, people's
 * items), used while the index is at rest, on the embedded default only (this process is the only
 * writer, so `Db.writeCount` sees every write). It is loaded once no write has happened between two
 * searches and dropped at the next write; while writes keep coming (an import, a re-cluster) `get`
 * answers null and the path reads per query as before, so a search during ingestion never pays for
 * reloading a whole snapshot. A snapshot holds the rows the per-query read would return at that moment.
 * On a Postgres server, where other processes write, `get` always answers null.
 */
export function snapshotAtRest<T>(db: Db, load: (workspaceId: string) => Promise<T>) {
  const snapshots = new Map<string, { writes: number; value: Promise<T> }>();
  const lastSeen = new Map<string, number>();
  return {
    get(workspaceId: string): Promise<T> | null {
      if (db.kind !== 'pglite') return null;
      const writes = db.writeCount();
      const hit = snapshots.get(workspaceId);
      if (hit && hit.writes === writes) return hit.value;
      const quiet = lastSeen.get(workspaceId) === writes;
      lastSeen.set(workspaceId, writes);
      if (!quiet) return null;
      const entry = { writes, value: load(workspaceId) };
      snapshots.set(workspaceId, entry);
      entry.value.catch(() => {
        if (snapshots.get(workspaceId) === entry) snapshots.delete(workspaceId);
      });
      return entry.value;
    },
  };
}
