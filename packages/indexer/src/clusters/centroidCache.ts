import type { Queryable } from '@engram/stores';
import { cosineToCentroid, norm } from './features.js';
import { countItems } from './itemTopics.js';

/**
 * Cluster centroids of a workspace held in memory, so assigning an item costs one scan over a few
 * thousand centroids instead of reading them all from the database. The database stays the truth:
 * a write is a compare-and-set on the cluster's `updated_at` (a stale entry is re-read and retried),
 * the cache reloads when the workspace's cluster count differs from its own (another process created
 * or dropped clusters), when it is older than its TTL, and when `recluster` in this process invalidates it.
 */
export interface CachedCluster {
  id: string;
  centroid: Float32Array;
  norm: number;
  count: number;
  /** `updated_at::text` of the row this entry was read from or written as. */
  version: string;
}

export interface WorkspaceCentroids {
  clusters: Map<string, CachedCluster>;
  /** Items in the workspace when loaded: the N of the entity IDF. */
  itemCount: number;
  loadedAt: number;
}

const caches = new WeakMap<object, Map<string, WorkspaceCentroids>>();

export function invalidateCentroids(db: object, workspaceId: string): void {
  caches.get(db)?.delete(workspaceId);
}

export const parseCentroid = (value: unknown): Float32Array | null => {
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(list) ? Float32Array.from(list as number[]) : null;
};

async function load(db: Queryable, workspaceId: string, dimensions: number): Promise<WorkspaceCentroids> {
  const res = await db.query<{ id: string; centroid: unknown; member_count: number; version: string }>(
    'SELECT id, centroid, member_count, updated_at::text AS version FROM clusters WHERE workspace_id = $1 AND member_count > 0',
    [workspaceId],
  );
  const clusters = new Map<string, CachedCluster>();
  for (const row of res.rows) {
    const centroid = parseCentroid(row.centroid);
    // A centroid from another model's vectors is not comparable: it waits for the next recluster.
    if (centroid === null || centroid.length !== dimensions) continue;
    clusters.set(row.id, { id: row.id, centroid, norm: norm(centroid), count: row.member_count, version: row.version });
  }
  return { clusters, itemCount: await countItems(db, workspaceId), loadedAt: Date.now() };
}

/**
 * The workspace's centroids of this dimension; reloaded when older than the TTL or when `clusterCount`
 * (the workspace's clusters as the caller just counted them) differs from the cached number.
 */
export async function centroidsFor(db: Queryable, workspaceId: string, dimensions: number, ttlMs: number, clusterCount?: number): Promise<WorkspaceCentroids> {
  let perDb = caches.get(db);
  if (!perDb) caches.set(db, (perDb = new Map()));
  const cached = perDb.get(workspaceId);
  if (cached && Date.now() - cached.loadedAt < ttlMs && (clusterCount === undefined || clusterCount === cached.clusters.size)) return cached;
  const fresh = await load(db, workspaceId, dimensions);
  perDb.set(workspaceId, fresh);
  return fresh;
}

export interface Nearest {
  id: string;
  similarity: number;
}

export function nearestCluster(cache: WorkspaceCentroids, feature: Float32Array, exclude?: string): Nearest | null {
  let best: Nearest | null = null;
  for (const cluster of cache.clusters.values()) {
    if (cluster.id === exclude) continue;
    const similarity = cosineToCentroid(feature, cluster.centroid, cluster.norm);
    if (best === null || similarity > best.similarity) best = { id: cluster.id, similarity };
  }
  return best;
}

export function putCluster(cache: WorkspaceCentroids, id: string, centroid: Float32Array, count: number, version: string): void {
  if (count <= 0) cache.clusters.delete(id);
  else cache.clusters.set(id, { id, centroid, norm: norm(centroid), count, version });
}
