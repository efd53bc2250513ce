import { refreshExpertise } from '@engram/indexer';
import type { JobHandlers } from '@engram/queue';
import { clearStaleExpertise, listStaleExpertise } from '@engram/stores';
import type { Runtime } from '../runtime.js';

/** Actors one `refreshExpertise` call recomputes: bounded statements however many are stale. */
const ACTORS_PER_CALL = 200;
/** The least time between two passes over a workspace's stale actors. */
const MIN_PACE_MS = 5_000;
/** A pass waits this many times the last pass's duration after it, so passes take at most a fifth of the time. */
const PACE_FACTOR = 4;

/**
 * While items are being indexed, a pass leaves people with more items than this for the pass after the
 * burst: recomputing a prolific author re-reads their whole history (thousands of items' entities) for a
 * few new items, and during a 100k import such reads were a third of the database's time.
 */
const BUSY_MAX_ITEMS = 300;

/** The last pass's duration per workspace, in this process: what paces the next one. */
const lastPassMs = new Map<string, number>();

/**
 * Asks for a pass over the workspace's stale actors (the indexer marks them as it writes their items).
 * Requests within one pace window share a job (its id names the window, and it runs when the window has
 * ended, so a mark made during the window is read by it), and the window is four times the last pass's
 * duration: an import of any size costs a bounded share of time in expertise passes, where one pass per
 * indexed item re-read the top authors' whole history hundreds of times.
 */
export async function requestExpertisePass(runtime: Runtime, workspaceId: string): Promise<void> {
  const paceMs = Math.max(MIN_PACE_MS, PACE_FACTOR * (lastPassMs.get(workspaceId) ?? 0));
  const window = Math.floor(Date.now() / paceMs);
  await runtime.queue.enqueue('actors.expertise', { workspaceId }, { jobId: `expertise:${workspaceId}:${paceMs}:${window}`, delayMs: paceMs });
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
        await refreshExpertise(runtime.db, workspaceId, actorIds);
        return;
      }
      const started = performance.now();
      const depth = (await runtime.queue.depths())['index.event'];
      const busy = depth.waiting + depth.active > 0;
      // The last event of a burst asks for a pass that runs once the burst is over: it takes everyone left.
      const stale = (await listStaleExpertise(runtime.db, workspaceId)).filter((s) => !busy || s.itemCount <= BUSY_MAX_ITEMS);
      for (let i = 0; i < stale.length; i += ACTORS_PER_CALL) {
        const part = stale.slice(i, i + ACTORS_PER_CALL);
        await refreshExpertise(runtime.db, workspaceId, part.map((s) => s.actorId));
        await clearStaleExpertise(runtime.db, part);
      }
      lastPassMs.set(workspaceId, performance.now() - started);
    },
  };
}
