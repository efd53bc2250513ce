import { LEXICAL_VERSION, relexIfStale, type Indexer } from '@engram/indexer';
import { getAreaModelVersion, listPendingEventIds, listWorkspaces, refreshPlannerStats } from '@engram/stores';
import type { Runtime } from '../runtime.js';
import { rebuildWhenQuiet } from './recluster.js';
import { recoverSyncs, scheduleIncrementalSyncs } from './syncPage.js';

/**
 * What a process does before and as its jobs start: re-embed after a model change, re-tokenize an index
 * built by another tokenizer, re-enqueue staged events a crash left pending, resume syncs, and schedule
 * the periodic jobs (and an area model for an index that has none).
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
    if (!(await getAreaModelVersion(db, ws.id))) await rebuildWhenQuiet(runtime, ws.id);
  }
}
