import { LEXICAL_VERSION, relexIfStale, type Indexer } from '@engram/indexer';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { getAreaModelVersion, listPendingEventIds, listWorkspaces, refreshPlannerStatsByTable, workspacesWithStaleExpertise } from '@engram/stores';
import type { Runtime } from '../runtime.js';
import { requestExpertisePass } from './expertise.js';
import { rebuildWhenQuiet } from './recluster.js';
import { recoverSyncs, scheduleIncrementalSyncs } from './syncPage.js';

/**
 * What a process does before and as its jobs start: re-embed after a model change, re-tokenize an index
 * built by another tokenizer, re-enqueue staged events (and expertise passes) a crash left pending,
 * resume syncs, and schedule the periodic jobs (and an area model for an index that has none).
 */
export async function recoverAtStart(runtime: Runtime, indexer: Indexer): Promise<void> {
  const { db, queue, logger } = runtime;
  const workspaceIds = (await listWorkspaces(db)).map((w) => w.id);
  if (runtime.modelChanged) {
    for (const workspaceId of workspaceIds) {
      const n = await indexer.reembedAll(workspaceId);
      logger.info({ workspaceId, items: n }, 're-embedded after a model change');
    }
  }
  // Statistics for the tables that have none or whose size moved since their last ANALYZE (a crash mid-import),
  // one table at a time: a whole-database ANALYZE at every start held the embedded database for 15.7 s on a
  // 100k-item index, while the searches of a freshly started server waited for their page reads.
  const analyzed = await refreshPlannerStatsByTable(db, () => nextTurn());
  if (analyzed.length > 0) logger.info({ tables: analyzed }, 'planner statistics refreshed');
  const relexed = await relexIfStale(db, workspaceIds, (from) =>
    logger.info({ from, to: LEXICAL_VERSION }, 'lexical index built by another tokenizer: re-tokenizing every item before jobs start'),
  );
  for (const [workspaceId, items] of relexed ?? []) logger.info({ workspaceId, items }, 'lexical index rebuilt for a new tokenizer');
  // The in-process queue forgets on a crash; the database does not. Staged events still pending are
  // enqueued again (job ids collapse duplicates on BullMQ).
  await enqueuePending(runtime);
  await recoverSyncs(runtime);
  await scheduleIncrementalSyncs(runtime);
  for (const ws of await listWorkspaces(db)) {
    await queue.schedule(`recluster:${ws.id}`, 'cluster.recluster', { workspaceId: ws.id }, runtime.config.reclusterIntervalMs);
    // An index from before the area model (or one whose first re-cluster never ran) gets it now, not at the next schedule.
    if (!(await getAreaModelVersion(db, ws.id))) await rebuildWhenQuiet(runtime, ws.id);
  }
  // Marks a crash left (the in-process queue forgot their pass) get one now.
  for (const workspaceId of await workspacesWithStaleExpertise(db)) await requestExpertisePass(runtime, workspaceId);
}

/** Enqueues the staged events still pending (staged before `stagedBefore`); a job id per event makes a queued one a no-op. */
async function enqueuePending(runtime: Runtime, stagedBefore?: Date, limit?: number): Promise<number> {
  const pending = await listPendingEventIds(runtime.db, limit, stagedBefore);
  if (pending.length) {
    await runtime.queue.enqueueMany('index.event', pending.map((p) => ({ payload: { workspaceId: p.workspaceId, eventId: p.id }, jobId: p.id })));
    runtime.logger.info({ events: pending.length, ...(stagedBefore ? { stagedBefore } : {}) }, 're-enqueued pending events');
  }
  return pending.length;
}

/** Events a sweep enqueues at most; the next sweep takes the rest. */
const SWEEP_LIMIT = 2_000;

/**
 * Every `pendingSweepMs`, staged events pending for longer than that are enqueued again. Staging (the
 * database) and enqueueing (Redis, or this process's queue) are two writes: an api killed between them, or
 * a webhook staged while Redis was down, leaves an event no job will take, until this sweep (or the next
 * start) finds it. Returns a stop function.
 */
export function sweepPendingEvents(runtime: Runtime): () => void {
  const everyMs = runtime.config.pendingSweepMs;
  if (everyMs <= 0) return () => undefined;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    enqueuePending(runtime, new Date(Date.now() - everyMs), SWEEP_LIMIT)
      .catch((err: unknown) => runtime.logger.warn({ err: (err as Error).message }, 'pending-event sweep failed; it runs again'))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
