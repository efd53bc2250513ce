/**
 * The `sync.page` job: fetch ONE page of one stream at the saved cursor, stage its events, enqueue their
 * indexing, and only then checkpoint the cursor and enqueue the next page. A crash anywhere before the
 * checkpoint re-fetches the same page and stages nothing new; nothing after it can lose a page.
 */
import type { SyncPagePayload } from '@engram/contracts';
import { PermanentJobError } from '@engram/queue';
import {
  advanceSyncCursor,
  getConnectionWithSecrets,
  getSyncCursor,
  lockSyncCursor,
  recordRateLimitWait,
  setSyncState,
  stageEvents,
  type SyncCursor,
} from '@engram/stores';
import { connectorFor as defaultConnectorFor } from '../registry.js';
import type { SyncObserver } from '../types.js';
import { syncPageJobId } from './jobIds.js';
import type { SyncDeps } from './types.js';
import { ALL_STREAMS, HIGH_WATER_OVERLAP_MS } from './types.js';
import { startBackfill, startIncremental } from './walks.js';

export interface SyncPageContext {
  /** 1 on the first try. */
  attempt?: number;
  maxAttempts?: number;
  signal?: AbortSignal;
}

export type SyncPageOutcome =
  | { outcome: 'checkpointed'; events: number; staged: number; done: boolean }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'started'; streams: string[] };

const ACTIVE: ReadonlySet<SyncCursor['state']> = new Set(['running', 'waiting']);

/** Provider answers no retry can fix: bad credentials, no access, no such repository/project. */
function isPermanent(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  if (status === 401 || status === 404) return true;
  if (status === 403) {
    const message = String((err as { message?: unknown }).message ?? '').toLowerCase();
    return !message.includes('rate limit');
  }
  return false;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 500);

export async function runSyncPage(deps: SyncDeps, payload: SyncPagePayload, ctx: SyncPageContext = {}): Promise<SyncPageOutcome> {
  const { db } = deps;
  if (payload.stream === ALL_STREAMS) {
    const walk = payload.mode === 'incremental' ? await startIncremental(deps, payload) : await startBackfill(deps, payload);
    return walk ? { outcome: 'started', streams: walk.streams } : { outcome: 'skipped', reason: 'connection not found' };
  }
  const key = { connectionId: payload.connectionId, stream: payload.stream, mode: payload.mode };
  const connection = await getConnectionWithSecrets(db, deps.secretBox, payload.connectionId);
  if (!connection) throw new PermanentJobError(`connection ${payload.connectionId} not found`);
  const cursor = await getSyncCursor(db, payload.connectionId, payload.stream, payload.mode);
  if (!cursor || !ACTIVE.has(cursor.state)) return { outcome: 'skipped', reason: `walk is ${cursor?.state ?? 'not started'}` };

  // Rate-limit waits are counted on the cursor row while the connector waits; settled before the checkpoint.
  const pending: Promise<unknown>[] = [];
  const observer: SyncObserver = {
    onRateLimitWait: ({ ms, reason }) => {
      pending.push(recordRateLimitWait(db, { ...key, ms }), setSyncState(db, { ...key, state: 'waiting', error: reason }));
    },
  };
  const connector = (deps.connectorFor ?? defaultConnectorFor)(connection, { observer });
  const stream = connector.streams().find((s) => s.name === payload.stream);
  if (!stream) {
    await setSyncState(db, { ...key, state: 'failed', error: `stream ${payload.stream} does not exist for ${connection.provider}` });
    throw new PermanentJobError(`unknown stream ${payload.stream}`);
  }

  let page;
  try {
    page = await stream.fetchPage(cursor.cursor, { ...(cursor.since ? { since: cursor.since } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}) });
  } catch (err) {
    await Promise.allSettled(pending);
    const permanent = isPermanent(err);
    const last = permanent || (ctx.attempt ?? 1) >= (ctx.maxAttempts ?? Number.POSITIVE_INFINITY);
    await setSyncState(db, { ...key, state: last ? 'failed' : 'running', error: message(err) });
    deps.logger?.[last ? 'error' : 'warn']({ ...key, attempt: ctx.attempt, err: message(err) }, last ? 'sync page failed' : 'sync page will retry');
    throw permanent ? new PermanentJobError(message(err)) : err;
  }
  await Promise.allSettled(pending);

  const staged = await stageEvents(db, { workspaceId: connection.workspaceId, connectionId: connection.id, events: page.events });
  await deps.queue.enqueueMany(
    'index.event',
    staged.ids.map((id) => ({ payload: { workspaceId: connection.workspaceId, eventId: id }, jobId: id })),
  );

  // Checkpoint only if this run still owns the cursor at the page it fetched (a restarted backfill or a
  // concurrent duplicate of this job has moved it on: then this page was staged harmlessly, no more).
  const done = page.next === null;
  const checkpoint = await db.transaction(async (tx) => {
    const now = await lockSyncCursor(tx, key.connectionId, key.stream, key.mode);
    if (!now || now.startedAt !== cursor.startedAt || now.pages !== cursor.pages || !ACTIVE.has(now.state)) return { advanced: false as const, now };
    const highWater = done && cursor.startedAt ? new Date(Date.parse(cursor.startedAt) - HIGH_WATER_OVERLAP_MS).toISOString() : null;
    await advanceSyncCursor(tx, { ...key, next: page.next, items: page.events.length, ...(page.totalHint !== undefined ? { totalHint: page.totalHint } : {}), highWater });
    return { advanced: true as const, now };
  });
  if (!checkpoint.advanced) {
    // The same run checkpointed past this page already (this job is a retry of one that crashed after its
    // checkpoint): make sure the walk's next page is queued; its job id collapses with one already there.
    const now = checkpoint.now;
    if (now && now.startedAt === cursor.startedAt && ACTIVE.has(now.state)) {
      await deps.queue.enqueue('sync.page', key, { jobId: syncPageJobId({ ...key, startedAt: now.startedAt, page: now.pages }) });
    }
    return { outcome: 'skipped', reason: 'cursor moved on while this page was fetched' };
  }
  if (!done) {
    await deps.queue.enqueue('sync.page', key, { jobId: syncPageJobId({ ...key, startedAt: cursor.startedAt, page: cursor.pages + 1 }) });
  } else {
    deps.logger?.info({ ...key, pages: cursor.pages + 1, items: cursor.items + page.events.length }, 'sync walk done');
  }
  return { outcome: 'checkpointed', events: page.events.length, staged: staged.inserted, done };
}
