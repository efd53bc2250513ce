import { setImmediate as nextTurn } from 'node:timers/promises';
import { rebuildAreaModel, recluster } from '@engram/indexer';
import type { JobHandlers } from '@engram/queue';
import { analyzeStaleTables, getAreaModelVersion, hasPendingEvents, RECLUSTER_REWRITTEN_TABLES, refreshPlannerStatsByTable } from '@engram/stores';
import type { Runtime } from '../runtime.js';
import { isIndexing, pacer } from './pace.js';

/** How long a re-cluster waiting for indexing to go quiet sleeps between looks. */
const QUIET_POLL_MS = 5_000;

/**
 * One re-cluster per build of the area model once indexing is quiet: every drain seen while the model
 * is build B asks for the job `after:B`, so drains collapse into one job until it has rebuilt, and a
 * drain after that asks for a new one. (An event finishing during the rebuild itself still sees B and
 * waits for the next drain or the schedule.) This relies on the queue remembering a completed job id for
 * an hour: the in-process queue used to remember the last 10,000 completed jobs of every kind together,
 * so the drains of a 100k import could leave several such jobs waiting, each to re-cluster the workspace
 * once the import was over; it now remembers them per kind, as BullMQ does per queue.
 */
export async function rebuildWhenQuiet(runtime: Runtime, workspaceId: string): Promise<void> {
  const built = await getAreaModelVersion(runtime.db, workspaceId);
  await runtime.queue.enqueue('cluster.recluster', { workspaceId, whenQuiet: true }, { jobId: `recluster:${workspaceId}:after:${built?.builtAt ?? 'none'}`, delayMs: QUIET_POLL_MS });
}

/** A burst's re-clusters: at least ten minutes apart, and ten times the last one's duration (at most a tenth of the time). */
const burstReclusters = pacer(600_000, 10);
/**
 * Workspaces with a burst's re-cluster asked for by this process and not yet started, and when it was
 * asked for. The mark lapses after BURST_PENDING_MS, in case another worker process ran the job: a second
 * job asked for meanwhile finds nothing left to do when it starts (`burstDue`).
 */
const burstPending = new Map<string, number>();
const BURST_PENDING_MS = 120_000;
const isBurstPending = (workspaceId: string): boolean => Date.now() - (burstPending.get(workspaceId) ?? -Infinity) < BURST_PENDING_MS;

/**
 * Share of a workspace's items that a burst must have brought since its last re-cluster before it asks
 * for one of its own: a re-cluster reads and recomputes every member, so 2,000 new items in a workspace
 * of 100,000 would pay for 100,000 (at 100k items a re-cluster beside an import took ~50 s of both cores,
 * and the one once the burst is over followed it anyway). An empty or new workspace asks at once, as before.
 */
const BURST_SHARE = 0.1;

/** Items indexed per workspace since its last re-cluster began, in this process. */
const indexedSince = new Map<string, number>();

/**
 * Asks for a re-cluster during a burst of indexing: merges reunite what concurrent assignment split.
 * One at a time per workspace, each at least ten minutes after the last re-cluster ended and ten times
 * its duration: at 100k items a re-cluster takes minutes of the database's time, and one every ten
 * minutes of an hour-long import took a third of it. (A job id per window, deduplicated by the queue,
 * paced them before: the in-process queue remembered the last 10,000 completed jobs of every kind together,
 * so an import re-clustered every 10,000 items.) And only once the burst has indexed BURST_SHARE of the
 * workspace since its last re-cluster: a small import into a large workspace waits for the re-cluster
 * once the burst is over (`rebuildWhenQuiet`), which is not paced.
 */
export async function requestBurstRecluster(runtime: Runtime, workspaceId: string): Promise<void> {
  indexedSince.set(workspaceId, (indexedSince.get(workspaceId) ?? 0) + 1);
  // Asked for once due, by the events indexed from then on (no job waits out the pace in the queue: a
  // burst over before then is the re-cluster once it is quiet).
  if (isBurstPending(workspaceId) || burstReclusters.untilDue(workspaceId) > 0 || !(await burstDue(runtime, workspaceId)) || isBurstPending(workspaceId)) return;
  burstPending.set(workspaceId, Date.now());
  await runtime.queue.enqueue('cluster.recluster', { workspaceId, burst: true }, { jobId: `recluster:${workspaceId}:burst:${Date.now()}`, delayMs: 5_000 }).catch((err: unknown) => {
    burstPending.delete(workspaceId);
    throw err;
  });
}

/** Whether the workspace's burst has indexed BURST_SHARE of it since its last re-cluster. */
async function burstDue(runtime: Runtime, workspaceId: string): Promise<boolean> {
  const since = indexedSince.get(workspaceId) ?? 0;
  // The read model's count (in memory on the embedded default, cached on a server) already holds most of the burst.
  const { documents } = await runtime.searchRead().stats(workspaceId);
  return since > 0 && since >= BURST_SHARE * Math.max(0, documents - since);
}

/**
 * `cluster.recluster`: re-clusters a workspace, rebuilds its area model and refreshes planner
 * statistics. A `whenQuiet` job waits (re-enqueuing itself) until no indexing is waiting or running and
 * the workspace has no event staged and not yet indexed.
 */
export function reclusterHandler(runtime: Runtime): Pick<JobHandlers, 'cluster.recluster'> {
  const { db, vectors, queue, logger } = runtime;
  return {
    'cluster.recluster': async ({ workspaceId, whenQuiet, burst }, { signal }) => {
      if (burst) {
        // A burst may ask for its next one from here: it is paced from this one's end. One that waited
        // behind another re-cluster (the burst's end, the schedule) may have nothing left to do.
        burstPending.delete(workspaceId);
        if (!(await burstDue(runtime, workspaceId))) return;
      }
      if (whenQuiet) {
        // The queue alone is not enough: it drains for a moment while an import's next file is still being
        // staged, and the files of one import are one burst.
        if ((await isIndexing(runtime)) || (await hasPendingEvents(db, workspaceId))) {
          await queue.enqueue('cluster.recluster', { workspaceId, whenQuiet }, { jobId: `recluster:${workspaceId}:quiet:${Date.now()}`, delayMs: QUIET_POLL_MS });
          return;
        }
      }
      // Each step reads and writes in small slices with yields between them and computes in a worker
      // thread, so on the embedded default the api keeps answering while it runs. Each also stops at its
      // next slice once the job's signal aborts (its deadline, or the process stopping), keeping the
      // workspace's current clusters and model.
      const began = performance.now();
      let started = began;
      // What this re-cluster will read counts as seen by it: a burst counts from here.
      const counted = indexedSince.get(workspaceId) ?? 0;
      const between = async () => {
        await nextTurn();
        signal.throwIfAborted();
      };
      // On a server, statistics first where autovacuum has not caught up with the burst this follows: the
      // re-cluster reads every member's rows a page at a time, and a page planned without them scans tables.
      const analyzed = await analyzeStaleTables(db, between);
      if (analyzed.length > 0) logger.info({ workspaceId, tables: analyzed, ms: Math.round(performance.now() - began) }, 'planner statistics refreshed');
      started = performance.now();
      const res = await recluster(db, vectors, workspaceId, { signal, read: runtime.searchRead() });
      logger.info({ workspaceId, ...res, ms: Math.round(performance.now() - started) }, 'recluster done');
      // The area model follows the same bursts: new changes bring new files and titles.
      started = performance.now();
      const areas = await rebuildAreaModel(db, workspaceId, { signal });
      logger.info({ workspaceId, ...areas, ms: Math.round(performance.now() - started) }, 'area model rebuilt');
      burstReclusters.ran(workspaceId, performance.now() - began);
      indexedSince.set(workspaceId, Math.max(0, (indexedSince.get(workspaceId) ?? 0) - counted));
      // Runs after indexing bursts and on the schedule: the embedded database's planner statistics follow,
      // and the space of the rows this job replaced is made reusable (PGlite has no autovacuum).
      await refreshPlannerStatsByTable(db, between, RECLUSTER_REWRITTEN_TABLES);
    },
  };
}
