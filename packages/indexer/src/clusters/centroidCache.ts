import { listClusterCentroids, type Queryable, type SearchReadModel } from '@engram/stores';
import { CentroidRows, OFF_THREAD_MIN_ROWS, type FirstPass, type Nearest } from './centroidRows.js';
import { centre, centredCosine, centredMean, dot, norm, type CentredMean } from './features.js';
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
  /**
   * A copy of its centroid, read from `rows` (which holds the one copy the cache keeps: at 100k items a
   * centroid of its own a cluster was 12.6 MB beside the matrix's).
   */
  readonly centroid: Float32Array;
  norm: number;
  count: number;
  /** `updated_at::text` of the row this entry was read from or written as. */
  version: string;
}

export interface WorkspaceCentroids {
  clusters: Map<string, CachedCluster>;
  /** The same centroids as one matrix, for the nearest-cluster scan. */
  rows: CentroidRows;
  /** Sum of every member's feature (count times centroid, over clusters) and the member count: the workspace mean. */
  sum: Float64Array;
  members: number;
  /** Items in the workspace when loaded: the N of the entity IDF. */
  itemCount: number;
  loadedAt: number;
}

const caches = new WeakMap<object, Map<string, WorkspaceCentroids>>();

export function invalidateCentroids(db: object, workspaceId: string): void {
  caches.get(db)?.delete(workspaceId);
}

async function load(db: Queryable, workspaceId: string, dimensions: number, itemCounts?: Pick<SearchReadModel, 'stats'>): Promise<WorkspaceCentroids> {
  const rows = await listClusterCentroids(db, workspaceId);
  // Sized for what was read, with room to grow: grown from the default a row at a time, 4k rows were ten
  // copies into new memory (page faults: ~0.35 s of the event loop under 16 searching clients at 100k items).
  const capacity = Math.max(64, Math.ceil(rows.length * 1.25));
  const cache: WorkspaceCentroids = { clusters: new Map(), rows: new CentroidRows(dimensions, capacity), sum: new Float64Array(dimensions), members: 0, itemCount: 0, loadedAt: Date.now() };
  for (const row of rows) {
    // A centroid from another model's vectors is not comparable: it waits for the next recluster.
    if (row.centroid === null || row.centroid.length !== dimensions) continue;
    putCluster(cache, row.id, row.centroid, row.memberCount, row.version);
  }
  cache.itemCount = await countItems(itemCounts ?? db, workspaceId);
  return cache;
}

export interface CentroidsForOptions {
  /** Reload when the cache is older than this. */
  ttlMs: number;
  /** The workspace's clusters as the caller just counted them: a cache that holds another number reloads. */
  clusterCount?: number;
  /** Where a reload reads the workspace's item count (a read model); default: a count in SQL. */
  itemCounts?: Pick<SearchReadModel, 'stats'>;
}

/** The workspace's centroids as loaded, when they are younger than `ttlMs`; null otherwise (nothing is read). */
export function loadedCentroids(db: object, workspaceId: string, ttlMs: number): WorkspaceCentroids | null {
  const cached = caches.get(db)?.get(workspaceId);
  return cached && Date.now() - cached.loadedAt < ttlMs ? cached : null;
}

/** The workspace's centroids of this dimension, reloaded when older than the TTL or when the cluster count differs from the cached one. */
export async function centroidsFor(db: Queryable, workspaceId: string, dimensions: number, options: CentroidsForOptions): Promise<WorkspaceCentroids> {
  const { ttlMs, clusterCount, itemCounts } = options;
  let perDb = caches.get(db);
  if (!perDb) caches.set(db, (perDb = new Map()));
  const cached = loadedCentroids(db, workspaceId, ttlMs);
  if (cached && (clusterCount === undefined || clusterCount === cached.clusters.size)) return cached;
  const fresh = await load(db, workspaceId, dimensions, itemCounts);
  perDb.set(workspaceId, fresh);
  return fresh;
}

export type { FirstPass, Nearest };

/** The workspace mean as the cache knows it (shrunk while the workspace is small, see features.ts). */
export const workspaceMean = (cache: WorkspaceCentroids): CentredMean => centredMean(cache.sum, cache.members);

/** Centred cosine of a feature with a centroid (see `centredCosine`). */
export function similarityTo(mean: CentredMean, feature: Float32Array, centroid: Float32Array, centroidNorm = norm(centroid)): number {
  return centredCosine(centre(feature, mean), centroid, centroidNorm, mean);
}

/**
 * The cluster whose centred centroid is closest to the centred feature; from `pass` (`firstPasses`) when
 * one was taken for this feature, however the centroids have moved since.
 */
export function nearestCluster(cache: WorkspaceCentroids, feature: Float32Array, exclude?: string, mean = workspaceMean(cache), pass?: FirstPass): Promise<Nearest | null> {
  const centred = centre(feature, mean);
  // `centredCosine` per cluster, with the feature's own term (the same for every cluster) computed once:
  // two dot products a cluster instead of three, on the indexer's hottest loop.
  return cache.rows.nearest(centred, mean, dot(centred, mean.mean), exclude, pass);
}

/** First passes of `nearestCluster` for several features at once (null when the rows are few: see `CentroidRows.firstPasses`). */
export async function firstPasses(cache: WorkspaceCentroids, features: readonly Float32Array[]): Promise<FirstPass[] | null> {
  // Few rows scan on this thread, in `nearest`: the features are not centred for nothing.
  if (cache.rows.size < OFF_THREAD_MIN_ROWS) return null;
  const mean = workspaceMean(cache);
  return cache.rows.firstPasses(features.map((f) => centre(f, mean)));
}

export function putCluster(cache: WorkspaceCentroids, id: string, centroid: Float32Array, count: number, version: string): void {
  const previous = cache.clusters.get(id);
  if (previous) {
    const old = previous.centroid;
    for (let i = 0; i < cache.sum.length; i++) cache.sum[i]! -= (old[i] ?? 0) * previous.count;
  }
  cache.members -= previous?.count ?? 0;
  if (count > 0) for (let i = 0; i < cache.sum.length; i++) cache.sum[i]! += (centroid[i] ?? 0) * count;
  cache.members += Math.max(0, count);
  if (count <= 0) {
    cache.clusters.delete(id);
    cache.rows.delete(id);
  } else {
    const { rows } = cache;
    const cluster: CachedCluster = {
      id,
      get centroid() {
        const held = rows.read(id);
        if (!held) throw new Error(`cluster ${id} left the centroid cache`);
        return held;
      },
      norm: norm(centroid),
      count,
      version,
    };
    cache.clusters.set(id, cluster);
    rows.set(id, centroid, cluster.norm);
  }
}
