import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { lockDataDir } from './pglite/dirLock.js';
import { startPgliteThread, type PgliteThread } from './pglite/thread.js';
import { copyFromSql, readDeleteReach, writtenTables, type DeleteReach, type Queryable } from './queryable.js';

export type { QueryResult, Queryable } from './queryable.js';
export { readDeleteReach, writtenTables, type DeleteReach } from './queryable.js';

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs several statements with no parameters (DDL). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Whether the pgvector extension can be created on this database. */
  hasVectorExtension(): Promise<boolean>;
  /**
   * Runs `fn` while this process holds the database's schema lock, so processes starting together
   * (api and workers) change the schema one at a time: migrations, `CREATE EXTENSION`, vector tables.
   * On server Postgres it is a session-level advisory lock on one dedicated connection, and `fn` gets a
   * handle whose every statement runs on that connection (nested `withSchemaLock` calls on it re-enter).
   * Inside `fn`, use that handle: a statement through the outer one needs a second connection of the
   * pool. PGlite has one owner, so there `fn` just runs.
   */
  withSchemaLock<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * How many writes this handle has finished (transactions, and statements that change rows): a reader
   * of the same handle that caches what it read compares it to know whether to look again. With
   * `tables`, a number that changes only when a write may have changed one of them (a statement whose
   * tables cannot be told, such as a delete whose reach is not known, counts for every table). Counts
   * this process's writes only.
   */
  writeCount(tables?: readonly string[]): number;
  /**
   * Whether a transaction of this handle is under way (asked for and not yet committed or rolled back):
   * a read of committed rows only (`readCommitted`) on the embedded database waits for it to end.
   */
  transactionOpen(): boolean;
  /**
   * Reads from the catalog which tables a delete from each table may change (`readDeleteReach`), so that
   * `writeCount` counts a delete for those tables only; run after the schema changes (`migrate` does).
   */
  learnDeleteReach(): Promise<void>;
  close(): Promise<void>;
}

/** Advisory lock key (per database) under which start-up changes the schema. */
export const SCHEMA_LOCK_KEY = 724_001;

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

export async function openDatabase(url: string, options: { poolSize?: number; pgliteThread?: boolean; logSlowMs?: number; pgliteSharedBuffersMb?: number } = {}): Promise<Db> {
  const parsed = parseDatabaseUrl(url);
  if (parsed.kind === 'postgres') return openPostgres(parsed.target, options.poolSize ?? 10);
  // One process per embedded database directory (an in-memory database is this process's own).
  const release = parsed.target === 'memory://' ? async () => undefined : await lockDataDir(parsed.target);
  try {
    const pglite = options.pgliteThread
      ? await startPgliteThread(parsed.target, { logSlowMs: options.logSlowMs, sharedBuffersMb: options.pgliteSharedBuffersMb })
      : await openPgliteHere(parsed.target, options.pgliteSharedBuffersMb);
    return pgliteDb({ ...pglite, close: () => pglite.close().finally(release) });
  } catch (err) {
    await release();
    throw err;
  }
}

/** Counts finished writes for `writeCount`, in all and per table. */
function writeCounter() {
  let writes = 0;
  let open = 0;
  let untold = 0;
  const byTable = new Map<string, number>();
  let reach: DeleteReach = new Map();
  // Statements are templates: the answer is kept per text (up to a few thousand).
  const known = new Map<string, readonly string[] | null>();
  const tablesOf = (sql: string): readonly string[] | null => {
    let tables = known.get(sql);
    if (tables !== undefined) return tables;
    tables = writtenTables(sql, reach);
    if (known.size > 4_000) known.clear();
    known.set(sql, tables);
    return tables;
  };
  const bump = (tables: readonly string[] | null): void => {
    writes++;
    if (tables === null) untold++;
    else for (const t of tables) byTable.set(t, (byTable.get(t) ?? 0) + 1);
  };
  return {
    count: (tables?: readonly string[]): number => (tables ? tables.reduce((n, t) => n + (byTable.get(t) ?? 0), untold) : writes),
    /** Transactions asked for and not yet ended. */
    open: (): boolean => open > 0,
    /** Learns (again) which tables a delete reaches: `Db.learnDeleteReach`. */
    async learn(db: Queryable): Promise<void> {
      reach = await readDeleteReach(db);
      known.clear();
    },
    /** A statement: counted once it has finished, for the tables it may have changed (none: not a write). */
    async statement<T>(sql: string | null, work: Promise<T>): Promise<T> {
      const tables = sql === null ? null : tablesOf(sql);
      try {
        return await work;
      } finally {
        if (tables === null || tables.length > 0) bump(tables);
      }
    },
    /** A transaction: `fn` gets a handle that notes its statements' tables, counted when it has finished. */
    async transaction<T>(run: (record: (tx: Queryable) => Queryable) => Promise<T>): Promise<T> {
      let tables: Set<string> | null = new Set();
      const note = (sql: string): void => {
        const written = tablesOf(sql);
        if (written === null) tables = null;
        else for (const t of written) tables?.add(t);
      };
      const record = (tx: Queryable): Queryable => ({
        query: (sql, params) => {
          note(sql);
          return tx.query(sql, params);
        },
        ...(tx.copyFrom && {
          copyFrom: (table: string, columns: readonly string[], rows: Uint8Array) => {
            note(copyFromSql(table, columns));
            return tx.copyFrom!(table, columns, rows);
          },
        }),
      });
      open++;
      try {
        return await run(record);
      } finally {
        open--;
        bump(tables && [...tables]);
      }
    },
  };
}

/** PGlite on this thread, with the same statements as the PGlite thread (`pglite/thread.ts`) offers. */
async function openPgliteHere(dir: string, sharedBuffersMb?: number): Promise<PgliteThread> {
  // PGlite's client is loaded where it runs: on its own thread (the default) this thread never needs it.
  const { openPglite } = await import('./pglite/open.js');
  const lite = await openPglite(dir, { sharedBuffersMb });
  const query = async <R>(target: Pick<PGlite, 'query'>, sql: string, params: readonly unknown[]) => {
    const res = await target.query<R>(sql, params as unknown[]);
    return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
  };
  const copy = async (target: Pick<PGlite, 'query'>, table: string, columns: readonly string[], rows: Uint8Array) => {
    await target.query(copyFromSql(table, columns), [], { blob: new Blob([rows]) });
  };
  return {
    query: (sql, params) => query(lite, sql, params),
    copyFrom: (table, columns, rows) => copy(lite, table, columns, rows),
    exec: async (sql) => {
      await lite.exec(sql);
    },
    transaction: (fn) =>
      lite.transaction((tx) => fn({ query: (sql, params = []) => query(tx, sql, params), copyFrom: (table, columns, rows) => copy(tx, table, columns, rows) })),
    close: () => lite.close(),
  };
}

/**
 * The embedded database as a `Db`, on this thread or in a worker thread of its own (`pgliteThread: true`:
 * the WebAssembly work on another core, so a long write or read never holds the event loop that answers
 * HTTP). PGlite has one owner, so the schema lock is this process and every write is counted here.
 */
function pgliteDb(pglite: PgliteThread): Db {
  const writes = writeCounter();
  const db: Db = {
    kind: 'pglite',
    query: <R>(sql: string, params: readonly unknown[] = []) => writes.statement(sql, pglite.query<R>(sql, params)),
    copyFrom: (table, columns, rows) => writes.statement(copyFromSql(table, columns), pglite.copyFrom(table, columns, rows)),
    exec: (sql) => writes.statement(null, pglite.exec(sql)),
    transaction: (fn) => writes.transaction((record) => pglite.transaction((tx) => fn(record(tx)))),
    hasVectorExtension: async () => true,
    withSchemaLock: (fn) => fn(db),
    writeCount: writes.count,
    transactionOpen: writes.open,
    learnDeleteReach: () => writes.learn(db),
    close: () => pglite.close(),
  };
  return db;
}

async function openPostgres(connectionString: string, max: number): Promise<Db> {
  // The driver is loaded when a server database is opened: the embedded default never needs it.
  const { Pool } = (await import('pg')).default;
  const pool = new Pool({ connectionString, max });
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  await pool.query('SELECT 1');
  const writes = writeCounter();
  return {
    ...onConnection(pool, { take: () => pool.connect(), release: (client) => client.release() }, writes),
    withSchemaLock: async (fn) => {
      const client = await pool.connect();
      // Kept for the pool only after a clean unlock. Any failure closes the connection instead: its
      // session ends, and with it the lock, so no pooled connection is ever left holding it.
      let clean = false;
      try {
        await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK_KEY]);
        const locked: Db = {
          ...onConnection(client, { take: async () => client, release: () => undefined }, writes),
          withSchemaLock: (inner) => inner(locked),
          close: async () => undefined,
        };
        const out = await fn(locked);
        await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK_KEY]);
        clean = true;
        return out;
      } finally {
        client.release(clean ? undefined : new Error('schema lock connection closed after a failure'));
      }
    },
    close: () => pool.end(),
  };
}

/**
 * Queries, DDL and transactions on a pool (each on any free connection) or on one client (all on it):
 * `conn.take` gives the connection a transaction runs on and `conn.release` hands it back.
 */
function onConnection(
  c: pg.Pool | pg.PoolClient,
  conn: { take: () => Promise<pg.PoolClient>; release: (client: pg.PoolClient) => void },
  writes: ReturnType<typeof writeCounter>,
): Omit<Db, 'withSchemaLock' | 'close'> {
  const wrap = (q: pg.Pool | pg.PoolClient, counts: boolean): Queryable => ({
    query: async <R>(sql: string, params: readonly unknown[] = []) => {
      const work = q.query(sql, params as unknown[]);
      const res = await (counts ? writes.statement(sql, work) : work);
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
    },
  });
  return {
    kind: 'postgres',
    ...wrap(c, true),
    writeCount: writes.count,
    transactionOpen: writes.open,
    learnDeleteReach: () => writes.learn(wrap(c, false)),
    exec: async (sql) => {
      await writes.statement(null, c.query(sql));
    },
    transaction: (fn) => writes.transaction((record) => runTransaction(conn, wrap, (tx) => fn(record(tx)))),
    hasVectorExtension: async () => {
      const res = await c.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
      return (res.rowCount ?? 0) > 0;
    },
  };
}

/** `fn` inside BEGIN ... COMMIT on one connection; rolled back when it throws. */
async function runTransaction<T>(
  conn: { take: () => Promise<pg.PoolClient>; release: (client: pg.PoolClient) => void },
  wrap: (q: pg.PoolClient, counts: boolean) => Queryable,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  const client = await conn.take();
  try {
    await client.query('BEGIN');
    const out = await fn(wrap(client, false));
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    conn.release(client);
  }
}
