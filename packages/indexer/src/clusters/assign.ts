import {
  compareAndJoin,
  deleteCluster,
  insertSeedCluster,
  lockCluster,
  newId,
  readItemClusterState,
  readItemClusterStates,
  runUrgent,
  upsertClusterMember,
  writeClusterBatch,
  writeClusterCentroid,
  type ClusterBatch,
  type ClusterLabelsRow,
  type Db,
  type Queryable,
  type SearchReadModel,
} from '@engram/stores';
import { centroidsFor, firstPasses, invalidateCentroids, loadedCentroids, nearestCluster, putCluster, similarityTo, workspaceMean, type FirstPass, type WorkspaceCentroids } from './centroidCache.js';
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
  /** Where a reload of the centroids reads the workspace's item count (a read model's document count); default SQL. */
  itemCounts?: Pick<SearchReadModel, 'stats'>;
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
  return assignOne(db, input);
}

export interface BatchItem {
  itemId: string;
  /** The item's text embedding (chunk 0). */
  vector: readonly number[];
  /** Topical entities; read from `entity_mentions` when absent. */
  entities?: TopicalEntity[];
}

/**
 * `assignCluster` for many items of one workspace, in order, with the same outcome as assigning them one
 * by one. What each item needs about itself is read in one query; placements are decided in memory
 * against the centroids as the items before it left them; and the whole batch is written in one
 * transaction: each touched cluster once with its final centroid (compare-and-set on the version it
 * had), the new clusters, the new members. When another writer got there first (a version moved, an
 * item gained a cluster), nothing of the batch is written and its items go the single-item way, which
 * re-reads and retries. Members that move between clusters (rare: a re-indexed item) go that way too,
 * after the batch.
 */
export async function assignClusters(db: Db, workspaceId: string, items: readonly BatchItem[], options: AssignOptions = {}): Promise<Assignment[]> {
  const first = items[0];
  if (!first) return [];
  const unique = new Set(items.map((i) => i.itemId));
  if (unique.size !== items.length) return sequential(db, workspaceId, items, options);
  // Every other batch of the workspace waits for this one's turn: its statements go before other
  // background work in the embedded database's queue (`runUrgent`).
  // What the items need about themselves is read before the workspace's turn, while other batches hold it:
  // nothing another batch does changes it (a redelivery of the same item meanwhile loses at the write).
  const ownStates = runUrgent(() => readItemClusterStates(db, workspaceId, [...unique], TOPICAL_CATEGORIES));
  ownStates.catch(() => undefined);
  const space = options.space ?? DEFAULT_FEATURE_SPACE;
  const ttlMs = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  // The first passes too, over the centroids as the batches before this one leave them (`passesAhead`).
  const ahead = passesAhead(db, workspaceId, items, ownStates, ttlMs, space);
  // One batch of a workspace at a time in this process: a batch plans against the cached centroids and
  // updates them before it commits, so a second one planning meanwhile would only lose its race.
  return serialized(db, workspaceId, () => runUrgent(async () => {
    const dimensions = first.vector.length + space.entityDimensions;
    const cache = await centroidsFor(db, workspaceId, dimensions, { ttlMs, itemCounts: options.itemCounts });
    const taken = await ahead;
    // Passes taken on another cache (reloaded meanwhile) say nothing of this one's rows.
    const early = taken?.cache === cache ? taken : null;
    const states = early?.states ?? withTopicalEntities(await ownStates, cache.itemCount);
    const plan = await planBatch(workspaceId, cache, items, states, options, space, early);
    if (plan === null) {
      invalidateCentroids(db, workspaceId);
      return sequential(db, workspaceId, items, options);
    }
    const versions = await writeClusterBatch(db, plan.write);
    if (versions === null) {
      invalidateCentroids(db, workspaceId);
      return sequential(db, workspaceId, items, options);
    }
    for (const [clusterId, version] of versions) {
      const cluster = cache.clusters.get(clusterId);
      if (cluster) cluster.version = version;
    }
    const out: Assignment[] = [];
    for (const [index, item] of items.entries()) {
      out.push(plan.placed.get(index) ?? (await assignOne(db, { workspaceId, ...item, options })));
    }
    return out;
  }));
}

/** The one-by-one path. */
async function sequential(db: Db, workspaceId: string, items: readonly BatchItem[], options: AssignOptions): Promise<Assignment[]> {
  const out: Assignment[] = [];
  for (const item of items) out.push(await assignOne(db, { workspaceId, ...item, options }));
  return out;
}

const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

function serialized<T>(db: object, workspaceId: string, run: () => Promise<T>): Promise<T> {
  let perDb = queues.get(db);
  if (!perDb) queues.set(db, (perDb = new Map()));
  const previous = perDb.get(workspaceId) ?? Promise.resolve();
  const next = previous.then(run, run);
  const settled = next.catch(() => undefined);
  perDb.set(workspaceId, settled);
  void settled.then(() => {
    if (perDb.get(workspaceId) === settled) perDb.delete(workspaceId);
  });
  return next;
}

/**
 * Items whose first passes go to the scan thread in one request. One request for a whole batch (128 items
 * over ~4,000 centroids at 100k items: tens of ms of scanning) held the searches' vector scans behind it: 16
 * clients' p95 during an import rose 15% (bench/results/scale-2026-12-01-s48-account.md). Sixteen: a few ms.
 */
const PASS_CHUNK = 16;

/**
 * Longest a batch's plan holds the event loop between two turns of it, in ms. A turn every four items
 * (each scanned every centroid here, before the first passes went to the scan thread) let other work in
 * 32 times a batch: 123 ms of a 265 ms plan at 100k items, in the one step of an import that runs a batch
 * at a time (bench/results/scale-2026-12-02-s49-account.md).
 */
const PLAN_SLICE_MS = 4;

/** The items' features and first passes, taken before the batch's turn on `cache` (`passesAhead`). */
interface Ahead {
  cache: WorkspaceCentroids;
  states: Map<string, ItemState>;
  features: Float32Array[];
  /** The passes of each PASS_CHUNK items, in order. */
  chunks: Promise<FirstPass[] | null>[];
}

/** Each item's topic feature, or null when an item has no state (it went away). */
function featuresOf(items: readonly BatchItem[], states: Map<string, ItemState>, space: FeatureSpace): Float32Array[] | null {
  const features: Float32Array[] = [];
  for (const item of items) {
    const state = states.get(item.itemId);
    if (!state) return null;
    features.push(topicFeature(item.vector, item.entities ?? state.entities, space));
  }
  return features;
}

/**
 * The batch's first passes, asked for as soon as its items' states are read, while earlier batches of the
 * workspace hold its turn: in the turn, 73% of placing a batch was waiting for them (3.6 s of 4.9 s for
 * 4,000 items imported into the 100k index), the scan thread being busy with graph inserts. A pass may be
 * taken before the rows moved: `nearest` takes again, exactly, the rows written since (`CentroidRows`).
 * One request at a time, each after the last is answered, as in the turn. Null when the workspace's
 * centroids are not loaded (the turn loads them) or the states cannot be read.
 */
async function passesAhead(
  db: object,
  workspaceId: string,
  items: readonly BatchItem[],
  ownStates: ReturnType<typeof readItemClusterStates>,
  ttlMs: number,
  space: FeatureSpace,
): Promise<Ahead | null> {
  const read = await ownStates.catch(() => null);
  const cache = read && loadedCentroids(db, workspaceId, ttlMs);
  if (!read || !cache) return null;
  const states = withTopicalEntities(read, cache.itemCount);
  const features = featuresOf(items, states, space);
  if (features === null) return null;
  const chunks: Promise<FirstPass[] | null>[] = [];
  let previous: Promise<unknown> = Promise.resolve();
  for (let start = 0; start < features.length; start += PASS_CHUNK) {
    const chunk = previous.then(() => firstPasses(cache, features.slice(start, start + PASS_CHUNK))).catch(() => null);
    chunks.push(chunk);
    previous = chunk;
  }
  return { cache, states, features, chunks };
}

interface BatchPlan {
  write: ClusterBatch;
  /** Assignments decided in the batch, by the item's index; the others (moves) go one by one after it. */
  placed: Map<number, Assignment>;
}

/**
 * Decides every placement that needs no move, updating the cache as it goes (each item sees the
 * centroids the earlier ones left). Null when an item has no state (it went away): the single-item
 * path handles that. The cache is restored by a reload if the write loses.
 */
async function planBatch(
  workspaceId: string,
  cache: WorkspaceCentroids,
  items: readonly BatchItem[],
  states: Map<string, ItemState>,
  options: AssignOptions,
  space: FeatureSpace,
  ahead: Ahead | null = null,
): Promise<BatchPlan | null> {
  const threshold = options.threshold ?? DEFAULT_ASSIGN_THRESHOLD;
  const startVersion = new Map<string, string>();
  const seeded = new Map<string, ClusterLabelsRow>();
  const members: ClusterBatch['members'] = [];
  const placed = new Map<number, Assignment>();
  const features = ahead?.features ?? featuresOf(items, states, space);
  if (features === null) return null;
  // The items' first passes over the centroids, PASS_CHUNK to a request to the scan thread, the next
  // chunk's asked for while this one's items are placed (or all taken ahead of the batch's turn).
  const passesFrom = (start: number) => ahead?.chunks[start / PASS_CHUNK] ?? firstPasses(cache, features.slice(start, start + PASS_CHUNK));
  let next = passesFrom(0);
  let passes: FirstPass[] | null = null;
  let lastTurn = performance.now();
  for (const [index, item] of items.entries()) {
    if (index % PASS_CHUNK === 0) {
      passes = await next;
      lastTurn = performance.now();
      if (index + PASS_CHUNK < items.length) next = passesFrom(index + PASS_CHUNK);
    }
    // The event loop answers between items once PLAN_SLICE_MS have gone. A writer that moves the cache
    // meanwhile makes the batch's compare-and-set fail, as before.
    if (performance.now() - lastTurn >= PLAN_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastTurn = performance.now();
    }
    const state = states.get(item.itemId)!;
    const entities = item.entities ?? state.entities;
    const feature = features[index]!;
    const pass = passes?.[index % PASS_CHUNK];
    const mean = workspaceMean(cache);
    if (state.currentClusterId !== null) {
      const own = cache.clusters.get(state.currentClusterId);
      const best = await nearestCluster(cache, feature, state.currentClusterId, mean, pass);
      const ownSimilarity = own ? similarityTo(mean, feature, own.centroid, own.norm) : Number.NEGATIVE_INFINITY;
      const moves = own !== undefined && best !== null && best.similarity >= threshold && best.similarity > ownSimilarity + (options.moveMargin ?? DEFAULT_MOVE_MARGIN);
      if (!moves) placed.set(index, { clusterId: state.currentClusterId, created: false });
      continue;
    }
    const best = await nearestCluster(cache, feature, undefined, mean, pass);
    if (best !== null && best.similarity >= threshold) {
      const target = cache.clusters.get(best.id)!;
      const centroid = shiftMean(target.centroid, target.count, feature, 1);
      if (!seeded.has(target.id) && !startVersion.has(target.id)) startVersion.set(target.id, target.version);
      putCluster(cache, target.id, centroid, target.count + 1, target.version);
      members.push({ itemId: item.itemId, clusterId: target.id, similarity: similarityTo(mean, feature, centroid) });
      placed.set(index, { clusterId: target.id, created: false });
      continue;
    }
    const clusterId = newId('clu');
    seeded.set(clusterId, itemLabels(state.title, entities));
    putCluster(cache, clusterId, feature, 1, '');
    members.push({ itemId: item.itemId, clusterId, similarity: 1 });
    placed.set(index, { clusterId, created: true });
  }
  const final = (id: string) => cache.clusters.get(id)!;
  return {
    write: {
      workspaceId,
      updates: [...startVersion].map(([clusterId, version]) => ({ clusterId, version, centroid: final(clusterId).centroid, count: final(clusterId).count })),
      seeds: [...seeded].map(([clusterId, labels]) => ({ clusterId, centroid: final(clusterId).centroid, count: final(clusterId).count, labels })),
      members,
    },
    placed,
  };
}

async function assignOne(db: Db, input: AssignInput): Promise<Assignment> {
  const options = input.options ?? {};
  const space = options.space ?? DEFAULT_FEATURE_SPACE;
  const dimensions = input.vector.length + space.entityDimensions;
  const ttl = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  for (let attempt = 1; ; attempt++) {
    let cache = await centroidsFor(db, input.workspaceId, dimensions, { ttlMs: ttl, itemCounts: options.itemCounts });
    const state = await readItemState(db, input.workspaceId, input.itemId, cache.itemCount);
    cache = await centroidsFor(db, input.workspaceId, dimensions, { ttlMs: ttl, clusterCount: state.clusterCount, itemCounts: options.itemCounts });
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
    const best = await nearestCluster(cache, feature, currentId, mean);
    const ownSimilarity = own ? similarityTo(mean, feature, own.centroid, own.norm) : Number.NEGATIVE_INFINITY;
    const moves = own !== undefined && best !== null && best.similarity >= threshold && best.similarity > ownSimilarity + (options.moveMargin ?? DEFAULT_MOVE_MARGIN);
    if (!moves) return { clusterId: currentId, created: false };
    return (await move(db, cache, workspaceId, itemId, currentId, best.id, feature)) ? { clusterId: best.id, created: false } : null;
  }
  const best = await nearestCluster(cache, feature, undefined, mean);
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
  title: string;
  entities: TopicalEntity[];
}

/** Everything about the item in one round trip: its cluster, the workspace's cluster count, title and topical entities. */
async function readItemState(db: Queryable, workspaceId: string, itemId: string, itemCount: number): Promise<ItemState & { clusterCount: number }> {
  const state = await readItemClusterState(db, workspaceId, itemId, TOPICAL_CATEGORIES);
  return { ...state, entities: state.mentions.map((m) => toTopicalEntity(m as EntityRow, itemCount)) };
}

function withTopicalEntities(states: Awaited<ReturnType<typeof readItemClusterStates>>, itemCount: number): Map<string, ItemState> {
  return new Map([...states].map(([id, state]) => [id, { ...state, entities: state.mentions.map((m) => toTopicalEntity(m as EntityRow, itemCount)) }]));
}
