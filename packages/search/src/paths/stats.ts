import type { Queryable } from '@engram/stores';

export interface WorkspaceStats {
  documents: number;
  avgLength: number;
}

const TTL_MS = 30_000;

/** Collection statistics BM25 needs, cached briefly per workspace (they move slowly). */
export function createStatsCache(db: Queryable) {
  const cache = new Map<string, { at: number; stats: WorkspaceStats }>();
  return {
    async get(workspaceId: string): Promise<WorkspaceStats> {
      const hit = cache.get(workspaceId);
      if (hit && Date.now() - hit.at < TTL_MS) return hit.stats;
      const res = await db.query<{ n: string; avg: string | null }>('SELECT count(*) AS n, avg(lexical_length) AS avg FROM items WHERE workspace_id = $1', [workspaceId]);
      const stats = { documents: Number(res.rows[0]?.n ?? 0), avgLength: Number(res.rows[0]?.avg ?? 1) || 1 };
      cache.set(workspaceId, { at: Date.now(), stats });
      return stats;
    },
    invalidate(workspaceId: string) {
      cache.delete(workspaceId);
    },
  };
}
export type StatsCache = ReturnType<typeof createStatsCache>;
