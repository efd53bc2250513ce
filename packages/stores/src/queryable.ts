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
