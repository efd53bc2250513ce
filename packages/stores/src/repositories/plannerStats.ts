import type { Db } from '../db.js';

/**
 * `refreshPlannerStats` one table at a time, with `between` (a yield to the event loop) after each: on
 * the embedded database a whole-database ANALYZE is one statement that holds the only connection (and
 * the api's event loop) for seconds on a large index (6 s on the full prettier index under load).
 *
 * The tables in `vacuum` get `VACUUM (ANALYZE)` instead: a plain VACUUM (no rewrite, no exclusive lock)
 * makes the space of deleted rows reusable. PGlite runs no autovacuum, so a table rewritten wholesale
 * and pruned on every re-cluster (the area model, the cluster staging tables) otherwise keeps every old
 * copy: on 30k items each area-model rebuild grew its tables by 129 MB (403 -> 532 -> 661 -> 790 MB
 * over three rebuilds); vacuumed after each, they stay at 586-651 MB, and the rebuild itself is faster
 * (31 -> 25 s) as its inserts reuse the freed pages. A vacuum of a table that changed little is cheap:
 * pages the visibility map marks all-visible are skipped.
 *
 * A no-op on a Postgres server, whose autovacuum keeps statistics and space. Returns whether it ran.
 */
export async function refreshPlannerStatsByTable(db: Db, between: () => Promise<void> = async () => undefined, vacuum: readonly string[] = []): Promise<boolean> {
  if (db.kind !== 'pglite') return false;
  const tables = await db.query<{ name: string; table: string }>(
    "SELECT format('%I.%I', schemaname, tablename) AS name, tablename AS table FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
  );
  for (const { name, table } of tables.rows) {
    await db.query(vacuum.includes(table) ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
    await between();
  }
  return true;
}

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
