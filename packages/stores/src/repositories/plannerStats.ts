import type { Db } from '../db.js';

/**
 * `refreshPlannerStats` one table at a time, with `between` (a yield to the event loop) after each: on
 * the embedded database a whole-database ANALYZE is one statement that holds the only connection (and
 * the api's event loop) for seconds on a large index (6 s on the full prettier index under load).
 * A no-op on a Postgres server, whose autovacuum keeps statistics. Returns whether it ran.
 */
export async function refreshPlannerStatsByTable(db: Db, between: () => Promise<void> = async () => undefined): Promise<boolean> {
  if (db.kind !== 'pglite') return false;
  const tables = await db.query<{ name: string }>(
    "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
  );
  for (const { name } of tables.rows) {
    await db.query(`ANALYZE ${name}`);
    await between();
  }
  return true;
}
