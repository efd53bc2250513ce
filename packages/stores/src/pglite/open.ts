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

/** Opens the embedded database at `dir` with pgvector and Engram's session settings. */
export async function openPglite(dir: string): Promise<PGlite> {
  const lite = await PGlite.create(dir, { extensions: { vector } });
  await lite.exec(SESSION);
  return lite;
}
