import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

/**
 * The embedded database's session settings (PGlite is one session, so a SET holds for its life).
 *
 * `default_statistics_target = 10`: ANALYZE samples 3,000 rows a table instead of 30,000. PGlite runs
 * no autovacuum, so Engram analyzes after imports and re-clusters, and each ANALYZE holds the only
 * connection: on 30k items a whole-database ANALYZE took 1,823 ms and grew the WebAssembly heap (which
 * never shrinks) by 83 MB; with 10, 450 ms and no growth (`ANALYZE items` 603 -> 50 ms). The plans it
 * informs are lookups by id and workspace, for which a small sample suffices; search itself reads the
 * in-memory read model.
 *
 * `engram.postings = off`: no `postings` rows (`POSTINGS_KEPT` in `repositories/items.ts`). Searches here
 * read the in-memory read model, built from `items.search_vector`; the SQL read model, which answers
 * only until that has loaded, reads the stored vectors instead.
 */
const SESSION = "SET default_statistics_target = 10; SET engram.postings = 'off'";

/**
 * The embedded database's buffer cache, in MB (`PGLITE_SHARED_BUFFERS_MB`; PostgreSQL's default). It sits
 * in the WebAssembly heap, which never shrinks: at 100k items all of it was resident, the heap 188 MB. With
 * 64 the heap stayed at 128 MB and the server's resident set at rest was ~85 MB smaller, with searches as
 * fast, but imports into that index were slower and less steady (149-218 items/s in three runs against
 * 209-222 in four): a page not cached here is read or written back through the WebAssembly file layer
 * (`bench/results/scale-2026-11-30-s36-account.md`). A knob for a deployment short of memory.
 */
export const DEFAULT_SHARED_BUFFERS_MB = 128;

export interface PgliteOptions {
  sharedBuffersMb?: number;
}

/** Opens the embedded database at `dir` with pgvector and Engram's session settings. */
export async function openPglite(dir: string, options: PgliteOptions = {}): Promise<PGlite> {
  const sharedBuffersMb = options.sharedBuffersMb ?? DEFAULT_SHARED_BUFFERS_MB;
  if (!Number.isInteger(sharedBuffersMb) || sharedBuffersMb < 1) throw new Error(`shared buffers must be a whole number of MB, at least 1: got ${sharedBuffersMb}`);
  const lite = await PGlite.create(dir, { extensions: { vector }, startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`] });
  await lite.exec(SESSION);
  return lite;
}
