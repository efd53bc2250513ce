export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** What every repository needs: parameterised queries ($1, $2 ...) and transactions. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

/** Whether a statement only reads (a plain SELECT); anything else may write. */
export const isReadOnlySql = (sql: string): boolean => /^\s*SELECT\b/i.test(sql);

const WRITE_TARGET = /\b(?:INSERT\s+INTO|UPDATE|MERGE\s+INTO)\s+(?:ONLY\s+)?(?:public\.)?"?([a-z_][a-z0-9_]*)"?/gi;
/** A delete may cascade to other tables (foreign keys, the items tombstone trigger). */
const DELETES = /\b(?:DELETE\s+FROM|TRUNCATE)\b/i;
const CHANGES_NO_ROWS = /^\s*(?:ANALYZE|VACUUM|SET|RESET|SHOW|SAVEPOINT|RELEASE|ROLLBACK|BEGIN|COMMIT|SELECT)\b/i;
const targetsOf = new Map<string, readonly string[] | null>();

/**
 * The tables a statement may change rows of: [] when it changes none (a SELECT, ANALYZE ...), null when
 * that cannot be told (DDL, a delete, which may cascade): then assume any. Statements are templates, so the answer
 * is remembered per text (up to a few thousand).
 */
export function writtenTables(sql: string): readonly string[] | null {
  let tables = targetsOf.get(sql);
  if (tables !== undefined) return tables;
  if (CHANGES_NO_ROWS.test(sql)) tables = [];
  else if (DELETES.test(sql)) tables = null;
  else {
    const found = [...sql.matchAll(WRITE_TARGET)].map((m) => m[1]!.toLowerCase());
    tables = found.length > 0 && /^\s*(?:INSERT|UPDATE|MERGE|WITH)\b/i.test(sql) ? [...new Set(found)] : null;
  }
  if (targetsOf.size > 4_000) targetsOf.clear();
  targetsOf.set(sql, tables);
  return tables;
}
