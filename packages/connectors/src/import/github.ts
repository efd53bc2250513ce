/**
 * Import of a GitHub export file (corpus.json shape: REST objects with a `type` discriminator) through the
 * same normalisation and indexing path as a sync. The import id derives from the file's hash, so the
 * same file twice is the same import and stages nothing new.
 *
 * Each entry stands on its own: one that does not normalise, or holds text Postgres cannot store (a NUL in
 * a commit message), is counted in `invalid` and listed with its reason, and every other entry goes in.
 * A chunk the database refuses is staged again one event at a time, so a bad event fails alone.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SourceEvent, isUnstorable } from '@engram/contracts';
import type { JobQueue } from '@engram/queue';
import { linkImportEvents, sha256, stageEvents, upsertImport, type Db } from '@engram/stores';
import { normalizeGitHubObject } from '../github/index.js';
import { ExportFormatError, parseExportText } from './parse.js';

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
/** Error text safe to store in jsonb (a path may carry the very character that made the entry invalid). */
// eslint-disable-next-line no-control-regex -- the NUL is what is being replaced
const storable = (s: string): string => (isUnstorable(s) ? s.replace(/[\u0000\uD800-\uDFFF]/g, '\uFFFD') : s).slice(0, 500);
const zodMessage = (err: unknown): string => {
  const issues = (err as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  if (Array.isArray(issues) && issues.length) return storable(issues.slice(0, 3).map((i) => `${i.path.map(String).join('.') || '(object)'}: ${i.message}`).join('; '));
  return storable(err instanceof Error ? err.message : String(err));
};

/**
 * Entries normalised and validated between two turns of the event loop: the request that uploads a file
 * runs on the event loop that answers searches, and 2,000 entries at once were one run of ~0.5 s there
 * (a CPU profile at 100k items under 16 searching clients).
 */
const NORMALIZE_SLICE = 250;

/**
 * The file's entries as events, and the ones that are not. The parsed objects (as large again as the
 * events) are garbage once this returns, before any of the staging's round trips.
 */
async function normalizeExport(content: string, repo: string): Promise<{ entries: { index: number; event: SourceEvent }[]; errors: { index: number; message: string }[]; received: number }> {
  const parsed = parseExportText(content);
  const errors = [...parsed.errors];
  const entries: { index: number; event: SourceEvent }[] = [];
  for (const [i, { index, value }] of parsed.objects.entries()) {
    if (i > 0 && i % NORMALIZE_SLICE === 0) await nextTurn();
    try {
      const event = normalizeGitHubObject(value, repo);
      // Validated, not replaced: the event as normalised is what the content hash has always covered.
      SourceEvent.parse(event);
      entries.push({ index, event });
    } catch (err) {
      errors.push({ index, message: zodMessage(err) });
    }
  }
  const received = parsed.objects.length + parsed.errors.length;
  if (received > 0 && received === parsed.errors.length) {
    throw new ExportFormatError(`no entry of the file is JSON (${parsed.errors[0]!.message}): expected a JSON array or JSON Lines`);
  }
  return { entries, errors, received };
}

export async function importGitHubExport(
  deps: { db: Db; queue: JobQueue },
  input: { workspaceId: string; repo: string; content: string },
): Promise<ImportResult> {
  const { entries, errors, received } = await normalizeExport(input.content, input.repo);
  const fileHash = sha256(input.content);
  const record = () =>
    upsertImport(deps.db, {
      workspaceId: input.workspaceId, provider: 'github', container: input.repo.toLowerCase(), fileHash, received, invalid: errors.length, errors,
    });
  const importId = await record();
  const staged: { index: number; ids: string[]; inserted: number }[] = [];
  // Taken off the list as they go in: a staged chunk's events are garbage while the rest stage.
  while (entries.length > 0) {
    const chunk = entries.splice(0, CHUNK);
    try {
      const out = await stageEvents(deps.db, { workspaceId: input.workspaceId, importId, events: chunk.map((e) => e.event) });
      staged.push({ index: chunk[0]!.index, ids: out.ids, inserted: out.inserted });
    } catch {
      for (const entry of chunk) {
        try {
          const out = await stageEvents(deps.db, { workspaceId: input.workspaceId, importId, events: [entry.event] });
          staged.push({ index: entry.index, ids: out.ids, inserted: out.inserted });
        } catch (err) {
          errors.push({ index: entry.index, message: storable(`not stored: ${err instanceof Error ? err.message : String(err)}`) });
        }
      }
    }
  }
  errors.sort((a, b) => a.index - b.index);
  // Written again with the entries the database refused.
  if (errors.length) await record();
  const ids = new Set<string>();
  let inserted = 0;
  for (const s of staged) {
    await linkImportEvents(deps.db, importId, s.ids);
    await deps.queue.enqueueMany('index.event', s.ids.map((id) => ({ payload: { workspaceId: input.workspaceId, eventId: id }, jobId: id })));
    for (const id of s.ids) ids.add(id);
    inserted += s.inserted;
  }
  return { importId, received, staged: ids.size, inserted, invalid: errors.length, errors: errors.slice(0, 50) };
}
