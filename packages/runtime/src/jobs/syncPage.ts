/** `sync.page`: the sync engine's job handler and its start-up work, wired to a runtime. */
import { connectorFor, resumeSyncs, runSyncPage, scheduleAllIncrementalSyncs, type SyncDeps } from '@engram/connectors';
import { jobCatalog, type JobHandlers } from '@engram/queue';
import type { Runtime } from '../runtime.js';

export const syncDeps = (runtime: Runtime): SyncDeps => ({
  db: runtime.db, queue: runtime.queue, secretBox: runtime.secretBox, logger: runtime.logger,
  connectorFor: (connection, options) => connectorFor(connection, { ...options, requestTimeoutMs: runtime.config.providerRequestTimeoutMs }),
});

/** `sync.page`: one page of one walk (or, for stream `*`, the scheduled incremental tick). */
export function syncPageHandler(runtime: Runtime): Pick<JobHandlers, 'sync.page'> {
  const deps = syncDeps(runtime);
  return {
    'sync.page': async (payload, ctx) => {
      await runSyncPage(deps, payload, { attempt: ctx.attempt, maxAttempts: jobCatalog['sync.page'].attempts, signal: ctx.signal });
    },
  };
}

/** Re-enqueues the current page of every walk a crash or restart interrupted (run by `recovery.ts`). */
export async function recoverSyncs(runtime: Runtime): Promise<void> {
  const resumed = await resumeSyncs(runtime);
  if (resumed) runtime.logger.info({ walks: resumed }, 'resumed interrupted syncs');
}

/** One incremental tick per connection every `SYNC_INTERVAL_MS` (BullMQ job scheduler; a timer in memory). */
export async function scheduleIncrementalSyncs(runtime: Runtime): Promise<void> {
  await scheduleAllIncrementalSyncs(runtime, runtime.config.syncIntervalMs);
}
