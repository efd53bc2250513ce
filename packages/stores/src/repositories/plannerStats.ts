import type { Db } from '../db.js';

/**
 * `refreshPlannerStats` one table at a time, for the tables whose statistics are missing or out of date
 * (`staleEmbeddedTables`), with `between` (a yield to the event loop) after each: on the embedded database
 * an ANALYZE is one statement that holds the only connection, and a whole-database one took 15.7 s on a
 * 100k-item index at start (its files not yet in the page cache), while every search's page read waited.
 *
 * The tables in `vacuum` get `VACUUM (ANALYZE)` every time instead: a plain VACUUM (no rewrite, no
 * exclusive lock) makes the space of deleted rows reusable. PGlite runs no autovacuum, so a table rewritten
 * wholesale and pruned on every re-cluster (the area model, the cluster staging tables) otherwise keeps
 * every old copy: on 30k items each area-model rebuild grew its tables by 129 MB (403 -> 532 -> 661 -> 790
 * MB over three rebuilds); vacuumed after each, they stay at 586-651 MB, and the rebuild itself is faster
 * (31 -> 25 s) as its inserts reuse the freed pages. A vacuum of a table that changed little is cheap:
 * pages the visibility map marks all-visible are skipped.
 *
 * A no-op on a Postgres server, whose autovacuum keeps statistics and space. Returns the tables analyzed.
 */
export async function refreshPlannerStatsByTable(db: Db, between: () => Promise<void> = async () => undefined, vacuum: readonly string[] = [], share = 0.2): Promise<string[]> {
  if (db.kind !== 'pglite') return [];
  const tables = await staleEmbeddedTables(db, vacuum, share);
  for (const { name, table } of tables) {
    await db.query(vacuum.includes(table) ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
    await between();
  }
  return tables.map((t) => t.name);
}

/**
 * The embedded database's tables to analyze: those never analyzed (`reltuples` -1), those whose size in
 * pages moved by more than `share` (and by more than STALE_MIN_PAGES) from the `relpages` their last
 * ANALYZE recorded, and those in `always`. PGlite keeps no modification counts across a restart
 * (`pg_stat_user_tables` starts at zero), but its catalog keeps what the last ANALYZE saw; and the planner
 * itself scales a table's `reltuples` by its current size, so a table that grew a little at the same
 * density is planned as well without one. Tables come in name order.
 */
async function staleEmbeddedTables(db: Db, always: readonly string[], share: number): Promise<{ name: string; table: string }[]> {
  const res = await db.query<{ name: string; table: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name, c.relname AS table
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND (c.relname = ANY($1::text[]) OR c.reltuples < 0
             OR abs(pg_relation_size(c.oid) / current_setting('block_size')::int - c.relpages) > greatest($2::float8 * c.relpages, $3))
      ORDER BY 1`,
    [always, share, STALE_MIN_PAGES],
  );
  return res.rows;
}

/** Pages (8 KB) a table's size must move by before its statistics count as stale on the embedded database. */
const STALE_MIN_PAGES = 16;

/**
 * On a Postgres server, ANALYZE each table that has rows but no statistics, or whose rows changed by more
 * than `share` of it since its last analyze: what autovacuum does, for a server where it has not yet (it
 * wakes once a minute, and a bulk import outruns it) or does not run at all. Without statistics the
 * planner takes `item_id = ANY($1)` for half the table and scans all of it: a re-cluster reads its members'
 * entity mentions a page at a time, and on 30k items each page's read took 190 ms (a sequential scan of
 * 550k mentions) where the index answers in 6 ms, so the re-cluster grew with the square of the corpus.
 * A no-op on the embedded database (see `refreshPlannerStatsByTable`). Returns the tables analyzed.
 */
export async function analyzeStaleTables(db: Db, between: () => Promise<void> = async () => undefined, share = 0.2): Promise<string[]> {
  if (db.kind !== 'postgres') return [];
  const stale = await db.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_user_tables
      WHERE n_live_tup + n_mod_since_analyze >= $1
        AND (coalesce(last_analyze, last_autoanalyze) IS NULL OR n_mod_since_analyze > $2::float8 * greatest(n_live_tup, 1))
      ORDER BY 1`,
    [STALE_MIN_ROWS, share],
  );
  for (const { name } of stale.rows) {
    await db.query(`ANALYZE ${name}`);
    await between();
  }
  return stale.rows.map((r) => r.name);
}

/** Tables smaller than this are left to the planner's defaults (a scan of them costs little either way). */
const STALE_MIN_ROWS = 1_000;

/** The tables a re-cluster rewrites wholesale or stages through: vacuumed after it on the embedded database. */
export const RECLUSTER_REWRITTEN_TABLES = ['areas', 'area_term_lists', 'cluster_stage', 'cluster_member_stage', 'clusters', 'cluster_members'] as const;
