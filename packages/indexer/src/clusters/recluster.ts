import {
  applyReclusterStage,
  dropReclusterStage,
  dropStaleReclusterStages,
  listClusterMembersPage,
  newId,
  newReclusterRun,
  stageClusterMembers,
  stageClusters,
  type Db,
  type SearchReadModel,
  type SharedRows,
  type StagedMember,
  type VectorStore,
} from '@engram/stores';
import { invalidateCentroids } from './centroidCache.js';
import { DEFAULT_FEATURE_SPACE, type FeatureSpace } from './features.js';
import { countItems, loadItemTexts, loadTopicalMentions, type EntityRow } from './itemTopics.js';
import { pageSink, startComputeThread, unlessAborted, yieldingDb, yieldToLoop, type PageSink } from './offThread.js';
import type { PartitionOptions } from './partition.js';
import { createPlanner, type PlanOptions, type ReclusterPage, type ReclusterPlan, type SharedVectors } from './plan.js';

export interface ReclusterOptions extends Partial<PartitionOptions> {
  space?: FeatureSpace;
  /** Writes each cluster's summary from its most central titles when given (an LLM); else extractive. */
  summarize?: (titles: string[]) => Promise<string>;
  /** Smallest cluster worth an LLM summary. */
  summarizeMinMembers?: number;
  /**
   * Where the CPU work runs: a worker thread (the event loop stays free for HTTP), this thread, or
   * `auto` (the default): this thread for a small workspace, a worker above 1,000 members. All give the
   * same clusters.
   */
  thread?: 'worker' | 'inline' | 'auto';
  /**
   * Stops the re-cluster at the next statement or page once aborted (a deadline, a shutdown): it throws
   * the signal's reason, the staged slices are dropped and the workspace keeps its clusters.
   */
  signal?: AbortSignal;
  /**
   * Where members' entity mentions and the workspace's item count are read: the search's read model,
   * which on the embedded default holds them in memory (reading mentions from the database was ~25 ms a
   * page of 200 members, ~12 s of the database thread for a 100k workspace, beside an import's writes).
   * Default: SQL.
   */
  read?: Pick<SearchReadModel, 'itemMentions' | 'stats'>;
}

export interface ReclusterResult {
  clusters: number;
  merged: number;
  split: number;
}

export const DEFAULT_PARTITION: PartitionOptions = { mergeThreshold: 0.8, minSplitSize: 8, splitCoherence: 0.7, splitGain: 0.05 };
/**
 * Rows per statement, so that no statement holds the embedded database (and this thread) for long:
 * members read per page (their vectors arrive as text, about 5 KB each), clusters per staging
 * statement (a centroid is about 7 KB of JSON), members per staging statement.
 */
const READ_PAGE = 200;
const STAGE_CLUSTERS = 20;
const STAGE_MEMBERS = 1_000;
/** Staging rows older than this belong to a run that died: dropped by the next run. */
const STALE_STAGE_MS = 3_600_000;

/** Below this many members the plan is computed inline (about 40 ms), above it in a worker thread. */
const INLINE_MAX_MEMBERS = 1_000;

function planSink(options: PlanOptions, mode: ReclusterOptions['thread'], shared: SharedVectors | undefined): PageSink<ReclusterPage, ReclusterPlan> {
  return pageSink(mode, INLINE_MAX_MEMBERS, () => createPlanner(options, shared), () => {
    const thread = startComputeThread();
    // The shared matrix goes as it is (a SharedArrayBuffer is shared, not copied); pages' own arrays move.
    thread.post({ kind: 'plan:start', options, ...(shared ? { shared } : {}) });
    return {
      addPage: (page) => thread.post({ kind: 'plan:page', page }, [page.vectors.buffer, page.hasVector.buffer, ...(page.rows ? [page.rows.buffer] : [])] as ArrayBuffer[]),
      finish: async () => (await thread.ask({ kind: 'plan:finish' }, 'plan')).plan,
      close: () => thread.close(),
    };
  });
}

/**
 * The periodic re-cluster job for one workspace: recomputes every centroid from its members' current
 * vectors and entities, merges close clusters, splits incoherent ones, drops empty ones and relabels
 * all of them. Members whose vector is missing keep their cluster (or follow it into a merge).
 *
 * Built so that it never holds the event loop for long: members, vectors and entities are read in
 * pages, the computing runs in a worker thread (`thread: 'worker'`), and the result is staged in small
 * slices, then swapped in by one transaction of a few statements (readers never see half of it).
 */
export async function recluster(database: Db, vectors: VectorStore, workspaceId: string, options: ReclusterOptions = {}): Promise<ReclusterResult> {
  const db = yieldingDb(database, options.signal);
  const planOptions: PlanOptions = {
    partition: {
      mergeThreshold: options.mergeThreshold ?? DEFAULT_PARTITION.mergeThreshold,
      minSplitSize: options.minSplitSize ?? DEFAULT_PARTITION.minSplitSize,
      splitCoherence: options.splitCoherence ?? DEFAULT_PARTITION.splitCoherence,
      splitGain: options.splitGain ?? DEFAULT_PARTITION.splitGain,
    },
    space: options.space ?? DEFAULT_FEATURE_SPACE,
    itemCount: await countItems(options.read ?? db, workspaceId),
    centralTitlesMinMembers: options.summarize ? (options.summarizeMinMembers ?? 3) : 0,
  };
  await dropStaleReclusterStages(db, workspaceId, STALE_STAGE_MS);
  // The vectors read in place where the store has a mirror; from copies where it has none, or when a row
  // the plan read may have changed under it (a removal during the plan), in which case it is computed again.
  const { plan, itemIds } = (await planMembers(db, vectors, workspaceId, planOptions, options, true)) ?? (await planMembers(db, vectors, workspaceId, planOptions, options, false))!;

  const ids = plan.clusters.map((c) => c.id ?? newId('clu'));
  if (options.summarize) {
    for (const cluster of plan.clusters) {
      if (cluster.centralTitles.length === 0) continue;
      cluster.labels.summary = (await options.summarize(cluster.centralTitles)).trim() || cluster.labels.summary;
    }
  }
  const count = await write(db, yieldingDb(database), options.signal, workspaceId, plan, ids, itemIds);
  invalidateCentroids(database, workspaceId);
  return { clusters: count, merged: plan.merged, split: plan.split };
}

/**
 * Every member read in pages and planned. `inPlace`: the members' vectors are read in the vector mirror's
 * shared matrix, not copied (at 100k items the copies were 200 MB through the event loop and 154 MB of
 * 16-bit rows in the plan's thread); null when a row may have changed before the plan was done (the matrix's
 * stamp moved), for the caller to plan again from copies. Without a mirror, copies.
 */
async function planMembers(
  db: Db,
  vectors: VectorStore,
  workspaceId: string,
  planOptions: PlanOptions,
  options: ReclusterOptions,
  inPlace: boolean,
): Promise<{ plan: ReclusterPlan; itemIds: string[] } | null> {
  const start = inPlace ? (vectors.sharedRows?.(workspaceId, []) ?? null) : null;
  const shared = start ? { data: start.data, unit: start.unit, dimensions: start.dimensions } : undefined;
  const moved = (): boolean => start !== null && vectors.sharedRowsChanged!(workspaceId, start.stamp);
  const sink = planSink(planOptions, options.thread, shared);
  const itemIds: string[] = [];
  try {
    for (let after = ''; ; ) {
      const rows = await listClusterMembersPage(db, workspaceId, after, READ_PAGE);
      if (rows.length === 0) break;
      const ids = rows.map((r) => r.itemId);
      // The members' rows now; the stamp is checked once the page's other reads are done (a row moved since
      // the plan began fails it), and again once the plan is.
      const inPlaceRows = shared ? vectors.sharedRows!(workspaceId, ids) : null;
      if (shared && (!inPlaceRows || inPlaceRows.dimensions !== shared.dimensions)) return null;
      const page = await readPage(db, vectors, options.read, workspaceId, ids, rows.map((r) => r.clusterId), inPlaceRows);
      if (moved()) return null;
      sink.addPage(page, ids.length);
      itemIds.push(...ids);
      after = ids[ids.length - 1]!;
      await yieldToLoop();
      if (rows.length < READ_PAGE) break;
    }
    const plan = await unlessAborted(sink.finish(), options.signal);
    return moved() ? null : { plan, itemIds };
  } finally {
    await sink.close();
  }
}

/** One page of members with their vectors (or their rows in the shared matrix, `inPlace`), topical entities and titles. */
async function readPage(db: Db, vectors: VectorStore, read: ReclusterOptions['read'], workspaceId: string, itemIds: string[], clusterIds: string[], inPlace: Pick<SharedRows, 'rows' | 'dimensions'> | null): Promise<ReclusterPage> {
  if (inPlace) {
    const { rows, dimensions } = inPlace;
    const embedded = itemIds.filter((_, i) => rows[i]! >= 0);
    const mentions = await loadTopicalMentions(read ?? db, workspaceId, embedded);
    const texts = await loadItemTexts(db, embedded);
    const hasVector = Uint8Array.from(rows, (row) => (row >= 0 ? 1 : 0));
    return {
      clusterIds,
      dimensions,
      vectors: new Float32Array(0),
      rows,
      hasVector,
      mentions: itemIds.map((id) => mentions.get(id) ?? []),
      titles: itemIds.map((id) => texts.get(id)?.title ?? ''),
    };
  }
  await yieldToLoop();
  const found = await vectors.getVectors(workspaceId, itemIds);
  const embedded = itemIds.filter((id) => found.has(id));
  const mentions = await loadTopicalMentions(read ?? db, workspaceId, embedded);
  const texts = await loadItemTexts(db, embedded);
  const dimensions = found.values().next().value?.length ?? 0;
  const packed = new Float32Array(itemIds.length * dimensions);
  const hasVector = new Uint8Array(itemIds.length);
  const pageMentions: EntityRow[][] = [];
  const titles: string[] = [];
  itemIds.forEach((id, i) => {
    const vector = found.get(id);
    if (vector && vector.length === dimensions) {
      packed.set(vector, i * dimensions);
      hasVector[i] = 1;
    }
    pageMentions.push(mentions.get(id) ?? []);
    titles.push(texts.get(id)?.title ?? '');
  });
  return { clusterIds, dimensions, vectors: packed, hasVector, mentions: pageMentions, titles };
}

/**
 * Stages the plan in slices (yielding between them), then swaps it in. The stage goes through `db`, which
 * stops at its next statement once the job's signal aborts; the swap and the cleanup after a failure go
 * through `unstoppable`, without the signal: once the swap has begun it finishes (it is one transaction
 * of a few statements), so a stopped job has either changed nothing or swapped in all of its result.
 */
async function write(db: Db, unstoppable: Db, signal: AbortSignal | undefined, workspaceId: string, plan: ReclusterPlan, ids: string[], itemIds: string[]): Promise<number> {
  const runId = newReclusterRun();
  try {
    const { dimensions } = plan;
    for (let c = 0; c < plan.clusters.length; c += STAGE_CLUSTERS) {
      const slice = plan.clusters.slice(c, c + STAGE_CLUSTERS).map((cluster, i) => ({
        id: ids[c + i]!,
        ...cluster.labels,
        centroid: plan.centroids.subarray((c + i) * dimensions, (c + i + 1) * dimensions),
      }));
      await stageClusters(db, runId, workspaceId, slice);
      await yieldToLoop();
    }
    for (let m = 0; m < plan.memberItems.length; m += STAGE_MEMBERS) {
      const slice: StagedMember[] = [];
      for (let k = m; k < Math.min(plan.memberItems.length, m + STAGE_MEMBERS); k++) {
        slice.push({ itemId: itemIds[plan.memberItems[k]!]!, clusterId: ids[plan.memberClusters[k]!]!, similarity: plan.memberSimilarities[k]! });
      }
      await stageClusterMembers(db, runId, workspaceId, slice);
      await yieldToLoop();
    }
    const redirects = plan.redirects.map((r) => ({ from: r.from, to: ids[r.to]! }));
    signal?.throwIfAborted();
    return await applyReclusterStage(unstoppable, runId, workspaceId, redirects, yieldToLoop);
  } catch (error) {
    await dropReclusterStage(unstoppable, runId).catch(() => undefined);
    throw error;
  }
}
