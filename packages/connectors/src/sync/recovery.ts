/** Start-up work: resume walks a crash interrupted, and keep one incremental schedule per connection. */
import { listConnections, listSyncCursors } from '@engram/stores';
import { incrementalScheduleKey, syncPageJobId } from './jobIds.js';
import type { SyncDeps } from './types.js';
import { ALL_STREAMS } from './types.js';

/**
 * Re-enqueues the current page of every walk still running or waiting. The in-process queue forgets its
 * jobs on a crash; on BullMQ the job ids collapse with the jobs Redis kept. Returns the walks resumed.
 */
export async function resumeSyncs(deps: Pick<SyncDeps, 'db' | 'queue'>): Promise<number> {
  let resumed = 0;
  for (const connection of await listConnections(deps.db)) {
    for (const c of await listSyncCursors(deps.db, connection.id)) {
      if (c.state !== 'running' && c.state !== 'waiting') continue;
      const key = { connectionId: c.connectionId, stream: c.stream, mode: c.mode };
      await deps.queue.enqueue('sync.page', key, { jobId: syncPageJobId({ ...key, startedAt: c.startedAt, page: c.pages }) });
      resumed++;
    }
  }
  return resumed;
}

/** Schedules (or re-schedules, the key replaces) the incremental tick of one connection. */
export async function scheduleIncrementalSync(deps: Pick<SyncDeps, 'queue'>, connectionId: string, everyMs: number): Promise<void> {
  await deps.queue.schedule(incrementalScheduleKey(connectionId), 'sync.page', { connectionId, stream: ALL_STREAMS, mode: 'incremental' }, everyMs);
}

export async function scheduleAllIncrementalSyncs(deps: Pick<SyncDeps, 'db' | 'queue'>, everyMs: number): Promise<number> {
  const connections = await listConnections(deps.db);
  for (const c of connections) await scheduleIncrementalSync(deps, c.id, everyMs);
  return connections.length;
}
