import type { Indexer } from '@engram/indexer';
import { jobCatalog, PermanentJobError, type JobHandlers } from '@engram/queue';
import { markEvent } from '@engram/stores';
import type { Runtime } from '../runtime.js';
import { requestExpertisePass } from './expertise.js';
import { rebuildWhenQuiet, requestBurstRecluster } from './recluster.js';

/**
 * `index.event`: one staged event becomes one indexed item (concurrent jobs share batches in the
 * indexer). New items re-cluster the workspace soon after a burst (at most one re-cluster per workspace
 * per ten minutes, and per ten times the last one's duration, once the burst holds a tenth of the
 * workspace: `requestBurstRecluster`), besides the
 * periodic schedule: merges reunite what concurrent assignment split. And once more when the backlog
 * drains (an import or a sync page is done), once no indexing is left running, so the clusters and the
 * area model hold what the burst's later events brought. Actors whose items changed get their expertise
 * refreshed by the next paced pass (`requestExpertisePass`). An event whose last attempt fails (the
 * embedding provider rejects the key, say) is marked failed with the error, so its import reports it
 * and `engram import --wait` ends (non-zero) instead of waiting on an event nothing will pick up again;
 * importing the same file again retries it.
 */
export function indexEventHandler(runtime: Runtime, indexer: Indexer): Pick<JobHandlers, 'index.event'> {
  const { queue } = runtime;
  return {
    'index.event': async ({ workspaceId, eventId }, ctx) => {
      const outcome = await indexer.indexEvent(eventId).catch(async (error: unknown) => {
        if (error instanceof PermanentJobError || ctx.attempt >= jobCatalog['index.event'].attempts) {
          const message = error instanceof Error ? error.message : String(error);
          await markEvent(runtime.db, eventId, 'failed', `gave up after ${ctx.attempt} attempt(s): ${message}`.slice(0, 2000));
        }
        throw error;
      });
      if (outcome.status === 'indexed') {
        await requestBurstRecluster(runtime, workspaceId);
        if ((await queue.depths())['index.event'].waiting === 0) await rebuildWhenQuiet(runtime, workspaceId);
      }
      if (outcome.actorIds.length > 0) await requestExpertisePass(runtime, workspaceId);
    },
  };
}
