import type { SourceEvent } from '@engram/contracts';
import type { Queryable } from '../db.js';
import { sha256, stableId } from '../crypto.js';

export interface StagedEvent {
  id: string;
  workspaceId: string;
  connectionId: string | null;
  event: SourceEvent;
  status: 'pending' | 'indexed' | 'failed' | 'skipped';
  attempts: number;
}

/** Hash of everything the indexer reads from an event: equal hash, nothing to redo. */
export function eventContentHash(event: SourceEvent): string {
  return sha256(JSON.stringify(event));
}

/**
 * Stages events idempotently: the id derives from (workspace, source, externalId, contentHash), so a
 * re-fetched page or a redelivered webhook stages nothing new. Returns the ids to enqueue (all of them,
 * new or already present; enqueuing uses the id as job id, so duplicates collapse).
 */
export async function stageEvents(
  db: Queryable,
  input: { workspaceId: string; connectionId?: string | null; importId?: string | null; events: SourceEvent[] },
): Promise<{ ids: string[]; inserted: number }> {
  if (input.events.length === 0) return { ids: [], inserted: 0 };
  const rows = input.events.map((event) => {
    const hash = eventContentHash(event);
    return { id: stableId('evt', input.workspaceId, event.source, event.externalId, hash), event, hash };
  });
  const res = await db.query<{ id: string }>(
    `INSERT INTO source_events (id, workspace_id, connection_id, import_id, source, external_id, content_hash, event)
     SELECT r.id, $1, $2, $3, r.source, r.external_id, r.content_hash, r.event
     FROM jsonb_to_recordset($4::jsonb) AS r(id text, source text, external_id text, content_hash text, event jsonb)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      input.workspaceId,
      input.connectionId ?? null,
      input.importId ?? null,
      JSON.stringify(rows.map((r) => ({ id: r.id, source: r.event.source, external_id: r.event.externalId, content_hash: r.hash, event: r.event }))),
    ],
  );
  return { ids: [...new Set(rows.map((r) => r.id))], inserted: res.rowCount };
}

export async function getStagedEvent(db: Queryable, id: string): Promise<StagedEvent | null> {
  const res = await db.query<{ id: string; workspace_id: string; connection_id: string | null; event: SourceEvent; status: StagedEvent['status']; attempts: number }>(
    'SELECT id, workspace_id, connection_id, event, status, attempts FROM source_events WHERE id = $1',
    [id],
  );
  const r = res.rows[0];
  return r ? { id: r.id, workspaceId: r.workspace_id, connectionId: r.connection_id, event: r.event, status: r.status, attempts: r.attempts } : null;
}

export async function markEvent(db: Queryable, id: string, status: StagedEvent['status'], error?: string): Promise<void> {
  await db.query('UPDATE source_events SET status = $2, error = $3, attempts = attempts + 1, processed_at = now() WHERE id = $1', [id, status, error ?? null]);
}

/**
 * Events not yet indexed (staged before `stagedBefore`, if given), oldest first: re-enqueued after a crash
 * of the in-process queue, and by the worker's sweep for jobs lost between staging and enqueueing.
 */
export async function listPendingEventIds(db: Queryable, limit = 10_000, stagedBefore?: Date): Promise<{ id: string; workspaceId: string }[]> {
  const res = await db.query<{ id: string; workspace_id: string }>(
    "SELECT id, workspace_id FROM source_events WHERE status = 'pending' AND created_at < $2 ORDER BY created_at LIMIT $1",
    [limit, stagedBefore ? stagedBefore.toISOString() : 'infinity'],
  );
  return res.rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id }));
}

/**
 * Whether the workspace has events staged and not yet indexed: an import's files still arriving, or its
 * queue not yet drained (the jobs that wait for a burst of indexing to be over ask this).
 */
export async function hasPendingEvents(db: Queryable, workspaceId: string): Promise<boolean> {
  const res = await db.query("SELECT 1 FROM source_events WHERE workspace_id = $1 AND status = 'pending' LIMIT 1", [workspaceId]);
  return res.rows.length > 0;
}

/** `getStagedEvent` for many ids in one query; ids not staged are absent from the map. */
export async function getStagedEvents(db: Queryable, ids: readonly string[]): Promise<Map<string, StagedEvent>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<{ id: string; workspace_id: string; connection_id: string | null; event: SourceEvent; status: StagedEvent['status']; attempts: number }>(
    'SELECT id, workspace_id, connection_id, event, status, attempts FROM source_events WHERE id = ANY($1::text[])',
    [[...new Set(ids)]],
  );
  return new Map(res.rows.map((r) => [r.id, { id: r.id, workspaceId: r.workspace_id, connectionId: r.connection_id, event: r.event, status: r.status, attempts: r.attempts }]));
}

/** `markEvent` for many events in one statement. */
export async function markEvents(db: Queryable, marks: readonly { id: string; status: StagedEvent['status']; error?: string }[]): Promise<void> {
  if (marks.length === 0) return;
  await db.query(
    `UPDATE source_events s SET status = m.status, error = m.error, attempts = s.attempts + 1, processed_at = now()
     FROM unnest($1::text[], $2::text[], $3::text[]) AS m(id, status, error) WHERE s.id = m.id`,
    [marks.map((m) => m.id), marks.map((m) => m.status), marks.map((m) => m.error ?? null)],
  );
}
