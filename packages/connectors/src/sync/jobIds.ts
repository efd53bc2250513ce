import type { SyncMode } from '@engram/stores';

/**
 * Job id of one page of one walk. `run` is the walk's start (a restarted backfill is a new run, so its
 * page 0 never collides with a finished job BullMQ still remembers); `page` counts checkpointed pages.
 */
export function syncPageJobId(input: { connectionId: string; stream: string; mode: SyncMode; startedAt: string | null; page: number }): string {
  const run = input.startedAt ? Date.parse(input.startedAt) : 0;
  return `sync:${input.connectionId}:${input.stream}:${input.mode}:${run}:${input.page}`;
}

export const incrementalScheduleKey = (connectionId: string): string => `sync:${connectionId}`;
