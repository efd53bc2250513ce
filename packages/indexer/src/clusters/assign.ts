import {
  compareAndJoin,
  deleteCluster,
  insertSeedCluster,
  lockCluster,
  newId,
  readItemClusterState,
  readItemClusterStates,
  upsertClusterMember,
  writeClusterCentroid,
  type Db,
  type Queryable,
} from '@engram/stores';
import { centroidsFor, invalidateCentroids, nearestCluster, putCluster, similarityTo, workspaceMean, type WorkspaceCentroids } from './centroidCache.js';
import { DEFAULT_FEATURE_SPACE, shiftMean, TOPICAL_CATEGORIES, topicFeature, type FeatureSpace, type TopicalEntity } from './features.js';
import { toTopicalEntity, type EntityRow } from './itemTopics.js';
import { itemLabels } from './labels.js';

export interface AssignOptions {
  /**
   * Centred blended cosine (see features.ts) an item needs with a centroid to join it; below it the
   * item seeds a new cluster. Tuned on the full prettier dataset (bench/results/clusters.md).
   */
  threshold?: number;
  /** A member moves only when another centroid is closer than its own by more than this. */
  moveMargin?: number;
  space?: FeatureSpace;
  /** Longest time the in-memory centroids are trusted without a reload. */
  cacheTtlMs?: number;
}

export const DEFAULT_ASSIGN_THRESHOLD = 0.5;
const DEFAULT_MOVE_MARGIN = 0.05;
const DEFAULT_CACHE_TTL_MS = 60_000;
const MAX_ATTEMPTS = 4;

export interface AssignInput {
  workspaceId: string;
  itemId: string;
  /** The item's text embedding (chunk 0). */
  vector: readonly number[];
  /** Topical entities; read from `entity_mentions` when absent, so call this after entities are written. */
  entities?: TopicalEntity[];
  options?: AssignOptions;
}

export interface Assignment {
  clusterId: string;
  created: boolean;
}

/**
 * Puts an item in the nearest topic cluster, or seeds a new one. Idempotent: an item already in a
 * cluster stays unless another centroid is clearly closer, and is never counted twice. Concurrent
 * writers are safe: each write is a compare-and-set, retried on a fresh read when it loses.
 */
export async function assignCluster(db: Db, input: AssignInput): Promise<Assignment> {
  return assignOne(db, input, null);
}

export interface BatchItem {
  itemId: string;
  /** The item's text embedding (chunk 0). */
  vector: readonly number[];
  /** Topical entities; read from `entity_mentions` when absent. */
  entities?: TopicalEntity[];
}

/**
 * `assignCluster` for many items of one workspace, in order: what each needs about itself (cluster,
 * title, entities) is read in one query for the whole batch instead of one per item. Same outcome as
 * assigning them one by one; an item that loses a race is retried the single-item way.
 */
export async function assignClusters(db: Db, workspaceId: string, items: readonly BatchItem[], options: AssignOptions = {}): Promise<Assignment[]> {
  const first = items[0];
  if (!first) return [];
  const space = options.space ?? DEFAULT_FEATURE_SPACE;
  const cache = await centroidsFor(db, workspaceId, first.vector.length + space.entityDimensions, options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS);
  const unique = new Set(items.map((i) => i.itemId));
  const states = unique.size === items.length ? await readItemStates(db, workspaceId, [...unique], cache.itemCount) : new Map<string, ItemState>();
  const out: Assignment[] = [];
  for (const item of items) out.push(await assignOne(db, { workspaceId, ...item, options }, states.get(item.itemId) ?? null));
  return out;
}

async function assignOne(db: Db, input: AssignInput, prefetched: ItemState | null): Promise<Assignment> {
  const options = input.options ?? {};
  const space = options.space ?? DEFAULT_FEATURE_SPACE;
  const dimensions = input.vector.length + space.entityDimensions;
  const ttl = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  for (let attempt = 1; ; attempt++) {
    let cache = await centroidsFor(db, input.workspaceId, dimensions, ttl);
    // A batch read the item's state before its earlier items were placed: its cluster count is not
    // compared (this process's own seeds are already in the cache; another writer's show as a lost race).
    const state = attempt === 1 && prefetched ? prefetched : await readItemState(db, input.workspaceId, input.itemId, cache.itemCount);
    if (!(attempt === 1 && prefetched)) cache = await centroidsFor(db, input.workspaceId, dimensions, ttl, state.clusterCount);
    const feature = topicFeature(input.vector, input.entities ?? state.entities, space);
    const done = await place(db, cache, input, options, feature, state.currentClusterId, state.title, input.entities ?? state.entities);
    if (done) return done;
    // Lost a race with another writer: forget the cache and read again.
    invalidateCentroids(db, input.workspaceId);
    if (attempt >= MAX_ATTEMPTS) throw new Error(`assignCluster: item ${input.itemId} lost ${attempt} races for its cluster`);
  }
}

async function place(
  db: Db,
  cache: WorkspaceCentroids,
  input: AssignInput,
  options: AssignOptions,
  feature: Float32Array,
  currentId: string | null,
  title: string,
  entities: TopicalEntity[],
): Promise<Assignment | null> {
  const { workspaceId, itemId } = input;
  const threshold = options.threshold ?? DEFAULT_ASSIGN_THRESHOLD;
  const mean = workspaceMean(cache);
  if (currentId !== null) {
    const own = cache.clusters.get(currentId);
    const best = nearestCluster(cache, feature, currentId, mean);
    const ownSimilarity = own ? similarityTo(mean, feature, own.centroid, own.norm) : Number.NEGATIVE_INFINITY;
    const moves = own !== undefined && best !== null && best.similarity >= threshold && best.similarity > ownSimilarity + (options.moveMargin ?? DEFAULT_MOVE_MARGIN);
    if (!moves) return { clusterId: currentId, created: false };
    return (await move(db, cache, workspaceId, itemId, currentId, best.id, feature)) ? { clusterId: best.id, created: false } : null;
  }
  const best = nearestCluster(cache, feature, undefined, mean);
  if (best !== null && best.similarity >= threshold) {
    const target = cache.clusters.get(best.id)!;
    const centroid = shiftMean(target.centroid, target.count, feature, 1);
    const outcome = await compareAndJoin(db, {
      workspaceId, itemId, clusterId: target.id, version: target.version, centroid, count: target.count + 1,
      similarity: similarityTo(mean, feature, centroid),
    });
    if (outcome.kind === 'stale') return null;
    putCluster(cache, target.id, centroid, target.count + 1, outcome.version);
    // A concurrent delivery of the same item won: take back the share just added, then re-read.
    if (outcome.kind === 'already_member') await db.transaction((tx) => leave(tx, cache, target.id, feature));
    return outcome.kind === 'joined' ? { clusterId: target.id, created: false } : null;
  }
  const clusterId = newId('clu');
  const version = await insertSeedCluster(db, { workspaceId, itemId, clusterId, centroid: feature, labels: itemLabels(title, entities) });
  if (version === null) return null;
  putCluster(cache, clusterId, feature, 1, version);
  return { clusterId, created: true };
}

/** Moves a member under row locks: joins the new cluster, then takes its share out of the old one. */
async function move(db: Db, cache: WorkspaceCentroids, workspaceId: string, itemId: string, fromId: string, toId: string, feature: Float32Array): Promise<boolean> {
  const applied: (() => void)[] = [];
  const moved = await db.transaction(async (tx) => {
    const target = await lockCluster(tx, toId);
    if (target === null) return false;
    const centroid = shiftMean(target.centroid, target.count, feature, 1);
    const version = await writeClusterCentroid(tx, toId, centroid, target.count + 1);
    await upsertClusterMember(tx, workspaceId, itemId, toId, similarityTo(workspaceMean(cache), feature, centroid));
    applied.push(() => putCluster(cache, toId, centroid, target.count + 1, version));
    applied.push(await leave(tx, cache, fromId, feature, true));
    return true;
  });
  if (moved) applied.forEach((apply) => apply());
  return moved;
}

/**
 * Takes one member's share out of a cluster; the last member leaving drops it. Returns the cache
 * update to apply after commit (applied at once unless `deferred`).
 */
async function leave(tx: Queryable, cache: WorkspaceCentroids, clusterId: string, feature: Float32Array, deferred = false): Promise<() => void> {
  const locked = await lockCluster(tx, clusterId);
  let apply = (): void => undefined;
  if (locked !== null && locked.count <= 1) {
    await deleteCluster(tx, clusterId);
    apply = () => putCluster(cache, clusterId, locked.centroid, 0, '');
  } else if (locked !== null) {
    const centroid = shiftMean(locked.centroid, locked.count, feature, -1);
    const version = await writeClusterCentroid(tx, clusterId, centroid, locked.count - 1);
    apply = () => putCluster(cache, clusterId, centroid, locked.count - 1, version);
  }
  if (!deferred) apply();
  return apply;
}

interface ItemState {
  currentClusterId: string | null;
  clusterCount: number;
  title: string;
  entities: TopicalEntity[];
}

/** Everything about the item in one round trip: its cluster, the workspace's cluster count, title and topical entities. */
async function readItemState(db: Queryable, workspaceId: string, itemId: string, itemCount: number): Promise<ItemState> {
  const state = await readItemClusterState(db, workspaceId, itemId, TOPICAL_CATEGORIES);
  return { ...state, entities: state.mentions.map((m) => toTopicalEntity(m as EntityRow, itemCount)) };
}

async function readItemStates(db: Queryable, workspaceId: string, itemIds: string[], itemCount: number): Promise<Map<string, ItemState>> {
  const states = await readItemClusterStates(db, workspaceId, itemIds, TOPICAL_CATEGORIES);
  return new Map([...states].map(([id, state]) => [id, { ...state, entities: state.mentions.map((m) => toTopicalEntity(m as EntityRow, itemCount)) }]));
}
