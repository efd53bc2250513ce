import { createIndexer, LEXICAL_VERSION, rebuildAreaModel, recluster, refreshExpertise, relexIfStale } from '@engram/indexer';
import { getAreaModelVersion, listPendingEventIds, listWorkspaces, refreshPlannerStats, refreshPlannerStatsByTable } from '@engram/stores';
import type { Runtime } from './runtime.js';
import { recoverSyncs, scheduleIncrementalSyncs, syncHandlers } from './sync.js';

/** How long a re-cluster waiting for indexing to go quiet sleeps between looks. */
const QUIET_POLL_MS = 5_000;

export interface Jobs {
  stop(): Promise<void>;
}

/**
 * Registers every job handler on this process's queue, re-enqueues work a crash left behind, and
 * schedules the periodic jobs. Runs in the worker, or in the api on the embedded default.
 */
export async function startJobs(runtime: Runtime): Promise<Jobs> {
  const { db, vectors, embedder, queue, logger } = runtime;
  const indexer = createIndexer({ db, vectors, embedder, logger });

  /**
   * One re-cluster per build of the area model once indexing is quiet: every drain seen while the model
   * is build B asks for the job `after:B`, so drains collapse into one job until it has rebuilt, and a
   * drain after that asks for a new one. (An event finishing during the rebuild itself still sees B and
   * waits for the next drain or the schedule.)
   */
  async function rebuildWhenQuiet(workspaceId: string): Promise<void> {
    const built = await getAreaModelVersion(db, workspaceId);
    await queue.enqueue('cluster.recluster', { workspaceId, whenQuiet: true }, { jobId: `recluster:${workspaceId}:after:${built?.builtAt ?? 'none'}`, delayMs: QUIET_POLL_MS });
  }

  queue.process({
    'index.event': async ({ workspaceId, eventId }) => {
      const outcome = await indexer.indexEvent(eventId);
      // New items re-cluster the workspace soon after a burst (at most one re-cluster per workspace per
      // ten minutes), besides the periodic schedule: merges reunite what concurrent assignment split.
      // And once more when the backlog drains (an import or a sync page is done), once no indexing is
      // left running, so the clusters and the area model hold what the burst's later events brought.
      if (outcome.status === 'indexed') {
        await queue.enqueue('cluster.recluster', { workspaceId }, { jobId: `recluster:${workspaceId}:${Math.floor(Date.now() / 600_000)}`, delayMs: 5_000 });
        if ((await queue.depths())['index.event'].waiting === 0) await rebuildWhenQuiet(workspaceId);
      }
      if (outcome.actorIds.length > 0) {
        await queue.enqueue('actors.expertise', { workspaceId, actorIds: outcome.actorIds }, { jobId: `expertise:${workspaceId}:${outcome.actorIds.slice().sort().join(',')}`, delayMs: 2_000 });
      }
    },
    'cluster.recluster': async ({ workspaceId, whenQuiet }) => {
      if (whenQuiet) {
        const indexing = (await queue.depths())['index.event'];
        if (indexing.waiting + indexing.active > 0) {
          await queue.enqueue('cluster.recluster', { workspaceId, whenQuiet }, { jobId: `recluster:${workspaceId}:quiet:${Date.now()}`, delayMs: QUIET_POLL_MS });
          return;
        }
      }
      // Each step reads and writes in small slices with yields between them and computes in a worker
      // thread, so on the embedded default the api keeps answering while it runs.
      let started = performance.now();
      const res = await recluster(db, vectors, workspaceId);
      logger.info({ workspaceId, ...res, ms: Math.round(performance.now() - started) }, 'recluster done');
      // The area model follows the same bursts: new changes bring new files and titles.
      started = performance.now();
      const areas = await rebuildAreaModel(db, workspaceId);
      logger.info({ workspaceId, ...areas, ms: Math.round(performance.now() - started) }, 'area model rebuilt');
      // Runs after indexing bursts and on the schedule: the embedded database's planner statistics follow.
      await refreshPlannerStatsByTable(db, () => new Promise((resolve) => setImmediate(resolve)));
    },
    'actors.expertise': async ({ workspaceId, actorIds }) => {
      await refreshExpertise(db, workspaceId, actorIds);
    },
    ...syncHandlers(runtime),
  });

  const workspaceIds = (await listWorkspaces(db)).map((w) => w.id);
  if (runtime.modelChanged) {
    for (const workspaceId of workspaceIds) {
      const n = await indexer.reembedAll(workspaceId);
      logger.info({ workspaceId, items: n }, 're-embedded after a model change');
    }
  }
  await refreshPlannerStats(db);
  const relexed = await relexIfStale(db, workspaceIds, (from) =>
    logger.info({ from, to: LEXICAL_VERSION }, 'lexical index built by another tokenizer: re-tokenizing every item before jobs start'),
  );
  for (const [workspaceId, items] of relexed ?? []) logger.info({ workspaceId, items }, 'lexical index rebuilt for a new tokenizer');
  // The in-process queue forgets on a crash; the database does not. Staged events still pending are
  // enqueued again (job ids collapse duplicates on BullMQ).
  const pending = await listPendingEventIds(db);
  if (pending.length) {
    await queue.enqueueMany('index.event', pending.map((p) => ({ payload: { workspaceId: p.workspaceId, eventId: p.id }, jobId: p.id })));
    logger.info({ events: pending.length }, 're-enqueued pending events');
  }
  await recoverSyncs(runtime);
  await scheduleIncrementalSyncs(runtime);
  for (const ws of await listWorkspaces(db)) {
    await queue.schedule(`recluster:${ws.id}`, 'cluster.recluster', { workspaceId: ws.id }, runtime.config.reclusterIntervalMs);
    // An index from before the area model (or one whose first re-cluster never ran) gets it now, not at the next schedule.
    if (!(await getAreaModelVersion(db, ws.id))) await rebuildWhenQuiet(ws.id);
  }
  return {
    async stop() {
      await queue.close(runtime.config.shutdownTimeoutMs);
    },
  };
}
