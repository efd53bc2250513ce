import { refreshExpertise } from '@engram/indexer';
import type { JobHandlers } from '@engram/queue';
import { clearStaleExpertise, listStaleExpertise } from '@engram/stores';
import type { Runtime } from '../runtime.js';
import { isIndexing, pacer } from './pace.js';

/** Actors one `refreshExpertise` call recomputes: bounded statements however many are stale. */
const ACTORS_PER_CALL = 200;
/**
 * While items are being indexed, a pass leaves people with more items than this for the pass after the
 * burst: recomputing a prolific author re-reads their whole history (thousands of items' entities) for a
 * few new items, and during a 100k import such reads were a third of the database's time.
 */
const BUSY_MAX_ITEMS = 300;

/** At least 5 s between two passes over a workspace, and four times the last pass's duration: at most a fifth of the time. */
const passes = pacer(5_000, 4);

/**
 * Asks for a pass over the workspace's stale actors (the indexer marks them as it writes their items).
 * Requests within one pace window share a job (its id names the window, and it runs when the window has
 * ended, so a mark made during the window is read by it), and the window is four times the last pass's
 * duration: an import of any size costs a bounded share of time in expertise passes, where one pass per
 * indexed item re-read the top authors' whole history hundreds of times.
 */
export async function requestExpertisePass(runtime: Runtime, workspaceId: string): Promise<void> {
  const window = passes.window(workspaceId);
  await runtime.queue.enqueue('actors.expertise', { workspaceId }, { jobId: `expertise:${workspaceId}:${window.id}`, delayMs: window.ms });
}

/**
 * `actors.expertise`: recomputes the expertise of the given actors, or (no `actorIds`) of every actor
 * marked stale when the pass starts (while indexing runs, only those with at most BUSY_MAX_ITEMS items),
 * then clears the marks it read; a mark renewed meanwhile stays for the next pass.
 */
export function expertiseHandler(runtime: Runtime): Pick<JobHandlers, 'actors.expertise'> {
  return {
    'actors.expertise': async ({ workspaceId, actorIds }) => {
      if (actorIds) {
        await refreshExpertise(runtime.db, workspaceId, actorIds, { read: runtime.searchRead() });
        return;
      }
      const started = performance.now();
      const busy = await isIndexing(runtime);
      // The last event of a burst asks for a pass that runs once the burst is over: it takes everyone left.
      const stale = (await listStaleExpertise(runtime.db, workspaceId)).filter((s) => !busy || s.itemCount <= BUSY_MAX_ITEMS);
      // The item count (the IDF's N) comes from the read model: in memory on the embedded default, where
      // counting 100k items took 0.15-0.3 s of the database's one connection, once a pass, every few
      // seconds of an import; on a Postgres server the SQL read model's count, at most 30 s old.
      for (let i = 0; i < stale.length; i += ACTORS_PER_CALL) {
        const part = stale.slice(i, i + ACTORS_PER_CALL);
        await refreshExpertise(runtime.db, workspaceId, part.map((s) => s.actorId), { read: runtime.searchRead() });
        await clearStaleExpertise(runtime.db, part);
      }
      passes.ran(workspaceId, performance.now() - started);
    },
  };
}
