import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgVectorStore, migrate, migrations, openDatabase, type Db } from '../src/index.js';
import { randomSuffix } from '../src/testing/index.js';

/**
 * Several processes starting together on a fresh server database (api and workers after `docker compose
 * up`): each opens the database, migrates and opens the pgvector store, as `createRuntime` does. Every one
 * must start, and the schema must be built once.
 */
const server = process.env.ENGRAM_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
const onServer = server?.startsWith('postgres') ?? false;
if (!onServer && process.env.CI === 'true') throw new Error('CI=true but DATABASE_URL is not set: the server Postgres suites must run in CI');

const STARTERS = 6;
const DIMS = 8;

/** The same server, another database. */
const withDatabase = (url: string, name: string): string => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

const title = 'start-up on a fresh server database';
describe.skipIf(!onServer)(onServer ? title : `${title} (skipped: DATABASE_URL does not name a Postgres server)`, () => {
  const scratch = `engram_startup_${randomSuffix()}`;
  const url = withDatabase(server ?? '', scratch);
  let admin: pg.Client;
  let vectorAvailable = false;
  const opened: Db[] = [];

  const open = async (poolSize: number): Promise<Db> => {
    const db = await openDatabase(url, { poolSize });
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${scratch}`);
    const ext = await admin.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    vectorAvailable = (ext.rowCount ?? 0) > 0;
    if (!vectorAvailable && process.env.CI === 'true') throw new Error('CI=true but the pgvector extension is not installed on the server: .ci/run installs it');
  });
  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close().catch(() => undefined)));
    await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
    await admin.end();
  });

  it('lets every process start, applying each migration once', async ({ skip }) => {
    if (!vectorAvailable) return skip('pgvector extension not installed on this server');
    const starts = await Promise.allSettled(
      Array.from({ length: STARTERS }, async () => {
        const db = await open(2);
        const applied = await migrate(db);
        const store = await createPgVectorStore(db);
        await store.ensureCollection({ model: 'startup-test', dimensions: DIMS });
        return applied;
      }),
    );
    const failures = starts.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
    expect(failures).toEqual([]);
    const applied = starts.map((s) => (s.status === 'fulfilled' ? s.value : []));
    // One starter built the schema; the others found it done.
    expect(applied.filter((a) => a.length > 0)).toEqual([migrations.map((m) => m.id)]);

    const check = await open(1);
    const recorded = await check.query<{ id: string; n: string }>('SELECT id, count(*) AS n FROM schema_migrations GROUP BY id ORDER BY id');
    expect(recorded.rows).toEqual(migrations.map((m) => ({ id: m.id, n: '1' })));
    const ext = await check.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
    expect(ext.rowCount).toBe(1);
    const collections = await check.query<{ name: string; active: boolean }>('SELECT name, active FROM vector_collections');
    expect(collections.rows).toEqual([{ name: `vectors_startup_test_${DIMS}`, active: true }]);
  });

  it('runs on a pool of one connection (the lock and the migrations share it)', async () => {
    const db = await open(1);
    expect(await migrate(db)).toEqual([]);
  });

  it('releases the lock when the work under it fails, so the next starter is not blocked', async () => {
    const first = await open(2);
    await expect(
      first.withSchemaLock(async (locked) => {
        await locked.query('SELECT 1');
        throw new Error('migration failed half-way');
      }),
    ).rejects.toThrow('migration failed half-way');
    // A failed statement inside the lock: same outcome.
    await expect(first.withSchemaLock((locked) => locked.exec('CREATE TABLE schema_migrations (id text)'))).rejects.toThrow(/already exists/);

    const second = await open(2);
    const held = await second.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
    expect(held.rows[0]?.n).toBe('0');
    expect(await migrate(second)).toEqual([]);
    // The first handle still works after its lock connection was closed.
    expect(await migrate(first)).toEqual([]);
  });
});
