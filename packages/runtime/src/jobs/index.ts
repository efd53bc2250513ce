import { createIndexer } from '@engram/indexer';
import { statisticsKeeper } from '@engram/stores';
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
  // On a server, the planner's statistics follow an import's growth (see `statisticsKeeper`).
  const statistics = statisticsKeeper(db, {
    onAnalyzed: (tables, ms) => logger.info({ tables, ms: Math.round(ms) }, 'planner statistics refreshed'),
    onError: (err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'planner statistics not refreshed; the next indexed event tries again'),
  });
  queue.process({
    ...indexEventHandler(runtime, indexer, statistics),
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
      await statistics.settled();
    },
  };
}
