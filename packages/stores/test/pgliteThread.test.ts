import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, readCommitted, runInteractive, runUrgent, threadMemory, type Db } from '../src/index.js';

/**
 * PGlite in its worker thread (`PGLITE_THREAD=true`) behaves as PGlite on this thread did: errors keep
 * their Postgres fields, transactions commit or roll back whole and hold the connection while they run,
 * and this thread's event loop keeps turning while a statement runs there.
 */
describe('PGlite in a worker thread', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase('pglite://memory', { pgliteThread: true });
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, note text)');
  }, 60_000);
  afterAll(async () => db?.close());

  it('reports a failed statement with its Postgres code and message', async () => {
    await db.query('INSERT INTO t (id, note) VALUES (1, $1)', ['one']);
    const err = await db.query('INSERT INTO t (id, note) VALUES (1, $1)', ['again']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ code: '23505', message: expect.stringMatching(/duplicate key/) });
  });

  it('commits a transaction that resolves and rolls back one that throws, whole', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id, note) VALUES (2, $1), (3, $2)', ['two', 'three']);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id, note) VALUES (4, $1)', ['four']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const rows = await db.query<{ id: number }>('SELECT id FROM t ORDER BY id');
    expect(rows.rows.map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('runs a statement from outside a transaction after it, never inside it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO t (id, note) VALUES (5, $1)', ['five']);
      await held;
      throw new Error('roll back');
    });
    // Sent while the transaction is open: it must not see (or be rolled back with) the transaction's row.
    const outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM t WHERE id = 5');
    release();
    await expect(tx).rejects.toThrow('roll back');
    expect((await outside).rows[0]!.n).toBe(0);
  });

  it("answers an API request's read while a background transaction holds the connection, and the transaction still commits whole", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO t (id, note) VALUES (6, $1)', ['six']);
      await held;
      await t.query('INSERT INTO t (id, note) VALUES (7, $1)', ['seven']);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The transaction waits on this thread (`held`): the read does not wait for its commit.
    const read = await runInteractive(() => db.query<{ id: number }>('SELECT id FROM t WHERE id >= 6 ORDER BY id'));
    expect(read.rows.map((r) => r.id)).toEqual([6]);
    // A failing read borrowed into the transaction leaves it as it was.
    await expect(runInteractive(() => db.query('SELECT no_such_column FROM t'))).rejects.toMatchObject({ code: '42703' });
    release();
    await tx;
    const after = await db.query<{ id: number }>('SELECT id FROM t WHERE id >= 6 ORDER BY id');
    expect(after.rows.map((r) => r.id)).toEqual([6, 7]);
  });

  it('keeps reads that build state (readCommitted) and writes out of an open transaction', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO t (id, note) VALUES (8, $1)', ['eight']);
      await held;
      throw new Error('roll back');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    let answered = false;
    const committed = runInteractive(() => readCommitted(() => db.query<{ n: number }>('SELECT count(*)::int AS n FROM t WHERE id = 8'))).then((r) => {
      answered = true;
      return r;
    });
    const write = runInteractive(() => db.query('INSERT INTO t (id, note) VALUES (9, $1)', ['nine']));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    release();
    await expect(tx).rejects.toThrow('roll back');
    expect((await committed).rows[0]!.n).toBe(0);
    await write;
    const rows = await db.query<{ id: number }>('SELECT id FROM t WHERE id >= 8 ORDER BY id');
    expect(rows.rows.map((r) => r.id)).toEqual([9]);
  });

  it("runs statements queued behind a transaction by priority: an API request's, then urgent background work's, then other background work's", async () => {
    await db.exec('CREATE TABLE queued (seq serial PRIMARY KEY, note text)');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db.transaction(async (t) => {
      await t.query("INSERT INTO queued (note) VALUES ('transaction')", []);
      await held;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const insert = (note: string) => db.query('INSERT INTO queued (note) VALUES ($1)', [note]);
    // Queued in the opposite order to their priority, each while the transaction holds the connection.
    const background = insert('background');
    const urgent = runUrgent(() => db.transaction((t) => t.query('INSERT INTO queued (note) VALUES ($1)', ['urgent transaction'])));
    const urgentStatement = runUrgent(() => insert('urgent statement'));
    const request = runInteractive(() => insert('request'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await Promise.all([tx, background, urgent, urgentStatement, request]);
    const order = await db.query<{ note: string }>('SELECT note FROM queued ORDER BY seq');
    expect(order.rows.map((r) => r.note)).toEqual(['transaction', 'request', 'urgent transaction', 'urgent statement', 'background']);
  });

  it('keeps this event loop turning while a long statement runs', async () => {
    let turns = 0;
    let running = true;
    const spin = (): void => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    await db.query('SELECT count(*) FROM generate_series(1, 3000000)');
    running = false;
    // On this thread the statement would run in one synchronous stretch: a handful of turns at most.
    expect(turns).toBeGreaterThan(100);
  });

  it("reports the thread's V8 heap and its WebAssembly heap, which grows with a statement that needs memory", async () => {
    const before = (await threadMemory()).find((t) => t.thread === 'pglite/worker');
    expect(before?.heapUsedBytes).toBeGreaterThan(0);
    expect(before?.wasmBytes).toBeGreaterThan(16 * 2 ** 20);
    // The WebAssembly heap is not counted again as the thread's external memory.
    expect(before!.externalBytes).toBeLessThan(before!.wasmBytes);
    // A sort far larger than work_mem's spill threshold does not fit in the heap as it is: it grows, for good.
    await db.exec("SET work_mem = '200MB'");
    await db.query('SELECT g FROM generate_series(1, 3000000) g ORDER BY md5(g::text) LIMIT 1');
    const after = (await threadMemory()).find((t) => t.thread === 'pglite/worker');
    expect(after!.wasmBytes).toBeGreaterThan(before!.wasmBytes);
  });
});
