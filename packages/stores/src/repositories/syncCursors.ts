import type { Queryable } from '../db.js';

export type SyncMode = 'backfill' | 'incremental';
export type SyncState = 'idle' | 'running' | 'waiting' | 'done' | 'failed' | 'paused';

export interface SyncCursor {
  connectionId: string;
  stream: string;
  mode: SyncMode;
  cursor: Record<string, unknown> | null;
  since: string | null;
  highWater: string | null;
  state: SyncState;
  pages: number;
  items: number;
  totalHint: number | null;
  rateLimitWaits: number;
  rateLimitWaitMs: number;
  error: string | null;
  startedAt: string | null;
  completedAt: string | null;
  updatedAt: string;
}

interface Row {
  connection_id: string;
  stream: string;
  mode: SyncMode;
  cursor: Record<string, unknown> | null;
  since: Date | null;
  high_water: Date | null;
  state: SyncState;
  pages: number;
  items: number;
  total_hint: number | null;
  rate_limit_waits: number;
  rate_limit_wait_ms: string | number;
  error: string | null;
  started_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);
const toCursor = (r: Row): SyncCursor => ({
  connectionId: r.connection_id,
  stream: r.stream,
  mode: r.mode,
  cursor: r.cursor,
  since: iso(r.since),
  highWater: iso(r.high_water),
  state: r.state,
  pages: r.pages,
  items: r.items,
  totalHint: r.total_hint,
  rateLimitWaits: r.rate_limit_waits,
  rateLimitWaitMs: Number(r.rate_limit_wait_ms),
  error: r.error,
  startedAt: iso(r.started_at),
  completedAt: iso(r.completed_at),
  updatedAt: iso(r.updated_at)!,
});

export async function getSyncCursor(db: Queryable, connectionId: string, stream: string, mode: SyncMode): Promise<SyncCursor | null> {
  const res = await db.query<Row>('SELECT * FROM sync_cursors WHERE connection_id = $1 AND stream = $2 AND mode = $3', [connectionId, stream, mode]);
  return res.rows[0] ? toCursor(res.rows[0]) : null;
}

/**
 * Reads a cursor inside a transaction, holding its row lock until the transaction ends, so two jobs
 * checkpointing the same walk take turns. Null when the cursor does not exist.
 */
export async function lockSyncCursor(tx: Queryable, connectionId: string, stream: string, mode: SyncMode): Promise<SyncCursor | null> {
  const res = await tx.query<Row>('SELECT * FROM sync_cursors WHERE connection_id = $1 AND stream = $2 AND mode = $3 FOR UPDATE', [connectionId, stream, mode]);
  return res.rows[0] ? toCursor(res.rows[0]) : null;
}

export async function listSyncCursors(db: Queryable, connectionId: string): Promise<SyncCursor[]> {
  const res = await db.query<Row>('SELECT * FROM sync_cursors WHERE connection_id = $1 ORDER BY mode, stream', [connectionId]);
  return res.rows.map(toCursor);
}

/** Starts (or restarts) a walk: resets position and counters. */
export async function startSyncCursor(db: Queryable, input: { connectionId: string; stream: string; mode: SyncMode; since: string | null }): Promise<void> {
  await db.query(
    `INSERT INTO sync_cursors (connection_id, stream, mode, cursor, since, state, pages, items, rate_limit_waits, rate_limit_wait_ms, error, started_at, completed_at, updated_at)
     VALUES ($1, $2, $3, NULL, $4, 'running', 0, 0, 0, 0, NULL, now(), NULL, now())
     ON CONFLICT (connection_id, stream, mode) DO UPDATE SET cursor = NULL, since = $4, state = 'running', pages = 0, items = 0,
       rate_limit_waits = 0, rate_limit_wait_ms = 0, error = NULL, started_at = now(), completed_at = NULL, updated_at = now()`,
    [input.connectionId, input.stream, input.mode, input.since],
  );
}

/** Checkpoint after a page has been durably staged: the next fetch starts at `next`. */
export async function advanceSyncCursor(
  db: Queryable,
  input: { connectionId: string; stream: string; mode: SyncMode; next: Record<string, unknown> | null; items: number; totalHint?: number; highWater?: string | null },
): Promise<void> {
  await db.query(
    `UPDATE sync_cursors SET cursor = $4, pages = pages + 1, items = items + $5, total_hint = COALESCE($6, total_hint),
       high_water = GREATEST(high_water, $7::timestamptz),
       state = CASE WHEN $4::jsonb IS NULL THEN 'done' ELSE 'running' END,
       completed_at = CASE WHEN $4::jsonb IS NULL THEN now() ELSE NULL END, error = NULL, updated_at = now()
     WHERE connection_id = $1 AND stream = $2 AND mode = $3`,
    [input.connectionId, input.stream, input.mode, input.next === null ? null : JSON.stringify(input.next), input.items, input.totalHint ?? null, input.highWater ?? null],
  );
}

export async function recordRateLimitWait(db: Queryable, input: { connectionId: string; stream: string; mode: SyncMode; ms: number }): Promise<void> {
  await db.query(
    `UPDATE sync_cursors SET rate_limit_waits = rate_limit_waits + 1, rate_limit_wait_ms = rate_limit_wait_ms + $4, updated_at = now()
     WHERE connection_id = $1 AND stream = $2 AND mode = $3`,
    [input.connectionId, input.stream, input.mode, Math.round(input.ms)],
  );
}

export async function setSyncState(db: Queryable, input: { connectionId: string; stream: string; mode: SyncMode; state: SyncState; error?: string | null }): Promise<void> {
  await db.query('UPDATE sync_cursors SET state = $4, error = $5, updated_at = now() WHERE connection_id = $1 AND stream = $2 AND mode = $3', [
    input.connectionId,
    input.stream,
    input.mode,
    input.state,
    input.error ?? null,
  ]);
}
