import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/index.js';

describe('the embedded database session', () => {
  // ANALYZE holds the only connection: a small sample keeps it short and the WebAssembly heap from growing.
  it.each([true, false])('samples 3,000 rows a table for planner statistics (PGlite thread: %s)', async (pgliteThread) => {
    const db = await openDatabase('pglite://memory', { pgliteThread });
    try {
      expect((await db.query<{ default_statistics_target: string }>('SHOW default_statistics_target')).rows[0]!.default_statistics_target).toBe('10');
      await db.exec('CREATE TABLE t (id int); INSERT INTO t SELECT generate_series(1, 5000)');
      await db.query('ANALYZE t');
      const stats = await db.query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE relname = 't'");
      expect(Number(stats.rows[0]!.reltuples)).toBe(5000);
    } finally {
      await db.close();
    }
  }, 60_000);

  // The buffer cache sits in the WebAssembly heap, which never shrinks: a deployment short of memory makes it smaller.
  it.each([true, false])('keeps a 128 MB buffer cache unless given another size (PGlite thread: %s)', async (pgliteThread) => {
    for (const [size, shown] of [[undefined, '128MB'], [16, '16MB']] as const) {
      const db = await openDatabase('pglite://memory', { pgliteThread, ...(size ? { pgliteSharedBuffersMb: size } : {}) });
      try {
        expect((await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]!.shared_buffers).toBe(shown);
      } finally {
        await db.close();
      }
    }
  }, 60_000);

  it('refuses a buffer cache that is not a whole number of MB', async () => {
    await expect(openDatabase('pglite://memory', { pgliteThread: false, pgliteSharedBuffersMb: 0.5 })).rejects.toThrow(/whole number of MB/);
  });
});
