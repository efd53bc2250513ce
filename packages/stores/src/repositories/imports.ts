import type { Queryable } from '../db.js';
import { stableId } from '../crypto.js';

export interface ImportRecord {
  id: string;
  workspaceId: string;
  provider: string;
  container: string | null;
  received: number;
  invalid: number;
  errors: { index: number; message: string }[];
  createdAt: string;
}

export interface ImportProgress extends ImportRecord {
  /** Distinct events this import staged (duplicates inside the file collapse). */
  events: number;
  indexed: number;
  failed: number;
  pending: number;
}

/** The same file imported twice into the same workspace is the same import. */
export async function upsertImport(
  db: Queryable,
  input: { workspaceId: string; provider: string; container: string | null; fileHash: string; received: number; invalid: number; errors: { index: number; message: string }[] },
): Promise<string> {
  const id = stableId('imp', input.workspaceId, input.provider, input.container ?? '', input.fileHash);
  await db.query(
    `INSERT INTO imports (id, workspace_id, provider, container, file_hash, received, invalid, errors)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id) DO UPDATE SET received = $6, invalid = $7, errors = $8`,
    [id, input.workspaceId, input.provider, input.container, input.fileHash, input.received, input.invalid, JSON.stringify(input.errors.slice(0, 50))],
  );
  return id;
}

export async function linkImportEvents(db: Queryable, importId: string, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await db.query(
    'INSERT INTO import_events (import_id, event_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
    [importId, eventIds],
  );
}

/** An import and its progress: counts kept on its row as its events are linked and marked (migration 015). */
export async function getImportProgress(db: Queryable, id: string): Promise<ImportProgress | null> {
  const res = await db.query<{
    id: string;
    workspace_id: string;
    provider: string;
    container: string | null;
    received: number;
    invalid: number;
    errors: { index: number; message: string }[];
    created_at: Date;
    events: number;
    settled: number;
    failed: number;
  }>('SELECT id, workspace_id, provider, container, received, invalid, errors, created_at, events, settled, failed FROM imports WHERE id = $1', [id]);
  const r = res.rows[0];
  if (!r) return null;
  const events = Number(r.events);
  const indexed = Number(r.settled);
  const failed = Number(r.failed);
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    provider: r.provider,
    container: r.container,
    received: r.received,
    invalid: r.invalid,
    errors: r.errors,
    createdAt: new Date(r.created_at).toISOString(),
    events,
    indexed,
    failed,
    pending: events - indexed - failed,
  };
}
