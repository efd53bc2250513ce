import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** What every repository needs: parameterised queries ($1, $2 ...) and transactions. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs several statements with no parameters (DDL). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Whether the pgvector extension can be created on this database. */
  hasVectorExtension(): Promise<boolean>;
  /**
   * How many writes this handle has finished (transactions, and statements other than SELECT): a reader
   * of the same handle that caches what it read compares it to know whether to look again. Counts this
   * process's writes only.
   */
  writeCount(): number;
  close(): Promise<void>;
}

export interface DatabaseUrl {
  kind: 'pglite' | 'postgres';
  /** Directory for pglite (or `memory://`), connection string for postgres. */
  target: string;
}

export function parseDatabaseUrl(url: string): DatabaseUrl {
  if (url.startsWith('pglite://')) {
    const target = url.slice('pglite://'.length);
    if (!target) throw new Error('pglite:// URL needs a directory, e.g. pglite://./.data/db (or pglite://memory)');
    return { kind: 'pglite', target: target === 'memory' ? 'memory://' : target };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { kind: 'postgres', target: url };
  throw new Error(`unsupported database URL scheme in "${url.split(':')[0]}:": use pglite://<dir> or postgres://...`);
}

export async function openDatabase(url: string, options: { poolSize?: number } = {}): Promise<Db> {
  const parsed = parseDatabaseUrl(url);
  return parsed.kind === 'pglite' ? openPglite(parsed.target) : openPostgres(parsed.target, options.poolSize ?? 10);
}

/** Whether a statement may write (anything but a plain SELECT). */
const mayWrite = (sql: string): boolean => !/^\s*SELECT\b/i.test(sql);

async function openPglite(dir: string): Promise<Db> {
  const lite = await PGlite.create(dir, { extensions: { vector } });
  let writes = 0;
  const counted = async <T>(write: boolean, work: Promise<T>): Promise<T> => {
    try {
      return await work;
    } finally {
      if (write) writes++;
    }
  };
  return {
    kind: 'pglite',
    query: async <R>(sql: string, params: readonly unknown[] = []) => {
      const res = await counted(mayWrite(sql), lite.query<R>(sql, params as unknown[]));
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    exec: async (sql) => {
      await counted(true, lite.exec(sql));
    },
    transaction: (fn) =>
      counted(
        true,
        lite.transaction((tx) =>
          fn({
            query: async <R>(sql: string, params: readonly unknown[] = []) => {
              const res = await tx.query<R>(sql, params as unknown[]);
              return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
            },
          }),
        ),
      ),
    hasVectorExtension: async () => true,
    writeCount: () => writes,
    close: () => lite.close(),
  };
}

async function openPostgres(connectionString: string, max: number): Promise<Db> {
  const pool = new pg.Pool({ connectionString, max });
  let writes = 0;
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  await pool.query('SELECT 1');
  const wrap = (c: pg.Pool | pg.PoolClient): Queryable => ({
    query: async <R>(sql: string, params: readonly unknown[] = []) => {
      try {
        const res = await c.query(sql, params as unknown[]);
        return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
      } finally {
        if (c === pool && mayWrite(sql)) writes++;
      }
    },
  });
  return {
    kind: 'postgres',
    ...wrap(pool),
    exec: async (sql) => {
      try {
        await pool.query(sql);
      } finally {
        writes++;
      }
    },
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        writes++;
        client.release();
      }
    },
    hasVectorExtension: async () => {
      const res = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
      return (res.rowCount ?? 0) > 0;
    },
    writeCount: () => writes,
    close: () => pool.end(),
  };
}
