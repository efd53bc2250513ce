export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** What every repository needs: parameterised queries ($1, $2 ...) and transactions. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /**
   * Loads rows in COPY's binary format (`CopyBinaryRows`) into `table`'s `columns`, where the database
   * reads them straight from this process (PGlite). Absent elsewhere: write the same rows with `query`.
   */
  copyFrom?(table: string, columns: readonly string[], rows: Uint8Array): Promise<void>;
}

/** The statement `Queryable.copyFrom` runs on PGlite (which reads the rows from its `/dev/blob`). */
export const copyFromSql = (table: string, columns: readonly string[]): string => `COPY ${table} (${columns.join(', ')}) FROM '/dev/blob' WITH (FORMAT binary)`;

/** Whether a statement only reads (a plain SELECT); anything else may write. */
export const isReadOnlySql = (sql: string): boolean => /^\s*SELECT\b/i.test(sql);

const WRITE_TARGET = /\b(?:INSERT\s+INTO|UPDATE|MERGE\s+INTO|COPY)\s+(?:ONLY\s+)?(?:public\.)?"?([a-z_][a-z0-9_]*)"?/gi;
/** A delete may cascade to other tables (foreign keys, the items tombstone trigger). */
const DELETES = /\b(?:DELETE\s+FROM|TRUNCATE)\b/i;
const CHANGES_NO_ROWS = /^\s*(?:ANALYZE|VACUUM|SET|RESET|SHOW|SAVEPOINT|RELEASE|ROLLBACK|BEGIN|COMMIT|SELECT)\b/i;
const DELETE_ONE = /^\s*DELETE\s+FROM\s+(?:ONLY\s+)?(?:public\.)?"?([a-z_][a-z0-9_]*)"?/i;
const WRITES_MORE = /\b(?:INSERT\s+INTO|UPDATE|MERGE\s+INTO|TRUNCATE)\b/i;

/** Which tables a delete from a table may change rows of (itself and what cascades from it), or null: any. */
export type DeleteReach = ReadonlyMap<string, readonly string[] | null>;

/**
 * The tables a statement may change rows of: [] when it changes none (a SELECT, ANALYZE ...), null when
 * that cannot be told (DDL, a delete from a table `deleteReach` does not know): then assume any.
 */
export function writtenTables(sql: string, deleteReach?: DeleteReach): readonly string[] | null {
  if (CHANGES_NO_ROWS.test(sql)) return [];
  if (DELETES.test(sql)) {
    // One plain DELETE FROM t (no CTE, nothing else written): what a delete from t reaches.
    const one = DELETE_ONE.exec(sql);
    return one && !WRITES_MORE.test(sql) && sql.match(/\bDELETE\b/gi)!.length === 1 ? (deleteReach?.get(one[1]!.toLowerCase()) ?? null) : null;
  }
  const found = [...sql.matchAll(WRITE_TARGET)].map((m) => m[1]!.toLowerCase());
  return found.length > 0 && /^\s*(?:INSERT|UPDATE|MERGE|WITH|COPY)\b/i.test(sql) ? [...new Set(found)] : null;
}

/**
 * `DeleteReach` from the catalog: a delete from a table reaches the tables whose foreign keys cascade
 * (or set null, or a default) from it, transitively; a table with a trigger of its own (the items
 * tombstones, statement-level child deletes) may change anything, so a delete reaching one is untold.
 */
export async function readDeleteReach(db: Queryable): Promise<DeleteReach> {
  const [keys, triggered, tables] = await Promise.all([
    db.query<{ parent: string; child: string }>(
      `SELECT p.relname AS parent, c.relname AS child FROM pg_constraint k
       JOIN pg_class p ON p.oid = k.confrelid JOIN pg_class c ON c.oid = k.conrelid
       WHERE k.contype = 'f' AND k.confdeltype IN ('c', 'n', 'd') AND p.relnamespace = current_schema()::regnamespace`,
    ),
    db.query<{ name: string }>(
      `SELECT DISTINCT c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace`,
    ),
    db.query<{ name: string }>(`SELECT relname AS name FROM pg_class WHERE relkind IN ('r', 'p') AND relnamespace = current_schema()::regnamespace`),
  ]);
  const children = new Map<string, string[]>();
  for (const { parent, child } of keys.rows) children.set(parent, [...(children.get(parent) ?? []), child]);
  const hasTrigger = new Set(triggered.rows.map((r) => r.name));
  const reach = new Map<string, readonly string[] | null>();
  for (const { name } of tables.rows) {
    const seen = new Set([name]);
    const todo = [name];
    while (todo.length > 0) {
      for (const child of children.get(todo.pop()!) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        todo.push(child);
      }
    }
    reach.set(name, [...seen].some((t) => hasTrigger.has(t)) ? null : [...seen]);
  }
  return reach;
}
