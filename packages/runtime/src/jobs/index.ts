import { createIndexer } from '@engram/indexer';
import type { Runtime } from '../runtime.js';
import { expertiseHandler } from './expertise.js';
import { indexEventHandler } from './indexEvent.js';
import { reclusterHandler } from './recluster.js';
import { recoverAtStart, sweepPendingEvents } from './recovery.js';
import { syncPageHandler } from './syncPage.js';

export interface Jobs {
  stop(): Promise<void>;
}

/**
 * Registers every job handler on this process's queue (one file per job, with its policy), then runs
 * start-up recovery (`recovery.ts`). Runs in the worker, or in the api on the embedded default.
 */
export async function startJobs(runtime: Runtime): Promise<Jobs> {
  const { db, vectors, embedder, queue, logger } = runtime;
  const indexer = createIndexer({ db, vectors, embedder, logger, read: runtime.searchRead() });
  queue.process({
    ...indexEventHandler(runtime, indexer),
    ...reclusterHandler(runtime),
    ...expertiseHandler(runtime),
    ...syncPageHandler(runtime),
  });
  await recoverAtStart(runtime, indexer);
  const stopSweep = sweepPendingEvents(runtime);
  return {
    async stop() {
      stopSweep();
      await queue.close(runtime.config.shutdownTimeoutMs);
    },
  };
}
