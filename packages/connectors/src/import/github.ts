/**
 * Import of a GitHub export file (corpus.json shape: REST objects with a `type` discriminator) through the
 * same normalisation and indexing path as a sync. The import id derives from the file's hash, so the
 * same file twice is the same import and stages nothing new.
 */
import type { SourceEvent } from '@engram/contracts';
import type { JobQueue } from '@engram/queue';
import { linkImportEvents, sha256, stageEvents, upsertImport, type Db } from '@engram/stores';
import { normalizeGitHubObject } from '../github/index.js';
import { parseExportText } from './parse.js';

export interface ImportResult {
  importId: string;
  /** Entries in the file. */
  received: number;
  /** Distinct events staged by this import (equal objects collapse); `inserted` of them were new. */
  staged: number;
  inserted: number;
  invalid: number;
  /** The first invalid entries: position in the file and why. */
  errors: { index: number; message: string }[];
}

const CHUNK = 500;
const zodMessage = (err: unknown): string => {
  const issues = (err as { issues?: { path: (string | number)[]; message: string }[] }).issues;
  if (Array.isArray(issues) && issues.length) return issues.slice(0, 3).map((i) => `${i.path.join('.') || '(object)'}: ${i.message}`).join('; ');
  return err instanceof Error ? err.message : String(err);
};

export async function importGitHubExport(
  deps: { db: Db; queue: JobQueue },
  input: { workspaceId: string; repo: string; content: string },
): Promise<ImportResult> {
  const parsed = parseExportText(input.content);
  const errors = [...parsed.errors];
  const events: SourceEvent[] = [];
  for (const { index, value } of parsed.objects) {
    try {
      events.push(normalizeGitHubObject(value, input.repo));
    } catch (err) {
      errors.push({ index, message: zodMessage(err) });
    }
  }
  errors.sort((a, b) => a.index - b.index);
  const received = parsed.objects.length + parsed.errors.length;
  const importId = await upsertImport(deps.db, {
    workspaceId: input.workspaceId, provider: 'github', container: input.repo.toLowerCase(), fileHash: sha256(input.content), received, invalid: errors.length, errors,
  });
  const ids = new Set<string>();
  let inserted = 0;
  for (let i = 0; i < events.length; i += CHUNK) {
    const staged = await stageEvents(deps.db, { workspaceId: input.workspaceId, importId, events: events.slice(i, i + CHUNK) });
    await linkImportEvents(deps.db, importId, staged.ids);
    await deps.queue.enqueueMany('index.event', staged.ids.map((id) => ({ payload: { workspaceId: input.workspaceId, eventId: id }, jobId: id })));
    for (const id of staged.ids) ids.add(id);
    inserted += staged.inserted;
  }
  return { importId, received, staged: ids.size, inserted, invalid: errors.length, errors: errors.slice(0, 50) };
}
