/** Starting walks: a backfill of every stream, or the incremental tick that catches up since the high-water mark. */
import { getConnectionWithSecrets, getSyncCursor, startSyncCursor, type SyncMode } from '@engram/stores';
import { connectorFor as defaultConnectorFor } from '../registry.js';
import { syncPageJobId } from './jobIds.js';
import type { SyncDeps } from './types.js';

export interface StartedWalk {
  connectionId: string;
  mode: SyncMode;
  streams: string[];
}

async function streamNames(deps: SyncDeps, connectionId: string): Promise<{ workspaceId: string; streams: string[] } | null> {
  const connection = await getConnectionWithSecrets(deps.db, deps.secretBox, connectionId);
  if (!connection) return null;
  const connector = (deps.connectorFor ?? defaultConnectorFor)(connection);
  return { workspaceId: connection.workspaceId, streams: connector.streams().map((s) => s.name) };
}

async function startWalk(deps: SyncDeps, input: { connectionId: string; stream: string; mode: SyncMode; since: string | null }): Promise<void> {
  await startSyncCursor(deps.db, input);
  const cursor = await getSyncCursor(deps.db, input.connectionId, input.stream, input.mode);
  await deps.queue.enqueue(
    'sync.page',
    { connectionId: input.connectionId, stream: input.stream, mode: input.mode },
    { jobId: syncPageJobId({ ...input, startedAt: cursor?.startedAt ?? null, page: 0 }) },
  );
}

/**
 * Starts (or restarts from the beginning) a backfill of every stream of a connection, optionally only of
 * objects changed at or after `since`. Returns null when the connection does not exist. A walk already
 * running is superseded: its in-flight page finds a newer run and does not checkpoint.
 */
export async function startBackfill(deps: SyncDeps, input: { connectionId: string; since?: string | null }): Promise<StartedWalk | null> {
  const found = await streamNames(deps, input.connectionId);
  if (!found) return null;
  for (const stream of found.streams) {
    await startWalk(deps, { connectionId: input.connectionId, stream, mode: 'backfill', since: input.since ?? null });
  }
  deps.logger?.info({ connectionId: input.connectionId, streams: found.streams, since: input.since ?? null }, 'backfill started');
  return { connectionId: input.connectionId, mode: 'backfill', streams: found.streams };
}

const later = (a: string | null | undefined, b: string | null | undefined): string | null => {
  if (!a) return b ?? null;
  if (!b) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
};

/**
 * The scheduled tick: for every stream whose backfill is done and whose incremental walk is not already
 * running, starts a walk of what changed since the later high-water mark of the two. Streams still
 * backfilling are left alone (the backfill will see those changes).
 */
export async function startIncremental(deps: SyncDeps, input: { connectionId: string }): Promise<StartedWalk | null> {
  const found = await streamNames(deps, input.connectionId);
  if (!found) return null;
  const started: string[] = [];
  for (const stream of found.streams) {
    const backfill = await getSyncCursor(deps.db, input.connectionId, stream, 'backfill');
    if (backfill?.state !== 'done') continue;
    const incremental = await getSyncCursor(deps.db, input.connectionId, stream, 'incremental');
    if (incremental && (incremental.state === 'running' || incremental.state === 'waiting')) continue;
    const since = later(backfill.highWater, incremental?.highWater);
    await startWalk(deps, { connectionId: input.connectionId, stream, mode: 'incremental', since });
    started.push(stream);
  }
  return { connectionId: input.connectionId, mode: 'incremental', streams: started };
}
