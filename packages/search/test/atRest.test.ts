import type { Db } from '@engram/stores';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cachedRead, snapshotAtRest } from '../src/paths/atRest.js';

/** A database that only counts writes, and a loader that reads "the rows" as they are when it runs. */
function fixture(kind: 'pglite' | 'postgres' = 'pglite') {
  const writes = new Map<string, number>();
  let rows = 'v0';
  let loads = 0;
  /** Rows another process has written to `t`, as the server's statistics count them. */
  let counted = 0;
  const db = {
    kind,
    writeCount: (tables: string[]) => tables.reduce((n, t) => n + (writes.get(t) ?? 0), 0),
    query: async (sql: string) => {
      if (!sql.includes('pg_stat_user_tables')) throw new Error(`unexpected query ${sql}`);
      return { rows: [{ relname: 't', n: counted }], rowCount: 1 };
    },
  } as unknown as Db;
  const write = (value: string, table = 't') => {
    if (table === 't') rows = value;
    writes.set(table, (writes.get(table) ?? 0) + 1);
  };
  const writeElsewhere = (value: string) => {
    rows = value;
    counted++;
  };
  const load = async (_workspaceId?: string) => {
    loads++;
    return rows;
  };
  return { db, write, writeElsewhere, load, loads: () => loads };
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('snapshotAtRest', () => {
  // The clock the staleness bound and the pacing read (timers stay real).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("on a Postgres server, sees another process's writes through the server's statistics", async () => {
    const f = fixture('postgres');
    const snap = snapshotAtRest(f.db, f.load, { maxStaleMs: 0, tables: ['t'] });
    expect(snap.get('ws')).toBeNull();
    await settle();
    expect(await snap.get('ws')).toBe('v0');
    expect(f.loads()).toBe(1);
    // Another process writes: this one's counter does not move, the statistics do (read every 250 ms).
    f.writeElsewhere('v1');
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Exact (bound 0): the snapshot is not served once the write shows; the path reads per query meanwhile.
    expect(snap.get('ws')).toBeNull();
    await settle();
    expect(await snap.get('ws')).toBe('v1');
    expect(f.loads()).toBe(2);
  });

  it('loads in the background, then serves the snapshot until a write', async () => {
    const f = fixture();
    const snap = snapshotAtRest(f.db, f.load, { tables: ['t'] });
    expect(snap.get('ws')).toBeNull(); // the first search reads per query; the load has begun
    await settle();
    expect(await snap.get('ws')).toBe('v0');
    expect(await snap.get('ws')).toBe('v0');
    expect(f.loads()).toBe(1);
  });

  it('while writes go on, serves the recent snapshot and reloads it in the background', async () => {
    const f = fixture();
    const snap = snapshotAtRest(f.db, f.load, { maxStaleMs: 1_000, tables: ['t'] });
    snap.get('ws');
    await settle();
    f.write('v1');
    expect(await snap.get('ws')).toBe('v0'); // stale but within the bound: no per-query read
    await settle();
    expect(f.loads()).toBe(1); // reloads are paced: not before half the bound has passed
    vi.advanceTimersByTime(600);
    expect(await snap.get('ws')).toBe('v0');
    await settle();
    expect(await snap.get('ws')).toBe('v1');
    expect(f.loads()).toBe(2);
    f.write('v2');
    vi.advanceTimersByTime(1_100);
    expect(snap.get('ws')).toBeNull(); // past the bound: read per query until the reload lands
    await settle();
    expect(await snap.get('ws')).toBe('v2');
  });

  it('when a load takes longer than a sixth of the bound, serves the snapshot for six loads\' time instead of reading per query', async () => {
    const f = fixture();
    // Each load takes 500 ms of the clock the bound reads (a large workspace during an import).
    const slowLoad = async () => {
      vi.advanceTimersByTime(500);
      return f.load();
    };
    const snap = snapshotAtRest(f.db, slowLoad, { maxStaleMs: 1_000, tables: ['t'] });
    snap.get('ws');
    await settle();
    f.write('v1');
    vi.advanceTimersByTime(1_500); // 2 s since the load began: past the 1 s bound, within 6 x 500 ms
    expect(await snap.get('ws')).toBe('v0');
    expect(f.loads()).toBe(1); // the next reload waits four loads' time (2 s) after the last ended
    vi.advanceTimersByTime(1_100); // 3.1 s: past six loads' time, and a reload has begun
    expect(snap.get('ws')).toBeNull();
    await settle();
    expect(await snap.get('ws')).toBe('v1');

    const exact = snapshotAtRest(f.db, slowLoad, { maxStaleMs: 0, tables: ['t'] });
    exact.get('ws');
    await settle();
    f.write('v2');
    expect(exact.get('ws')).toBeNull(); // a bound of 0 stays exact however slow the loads
  });

  it('counts staleness from the first write it missed, not from its load: a snapshot loaded long before an import still serves at its first write', async () => {
    const f = fixture();
    const snap = snapshotAtRest(f.db, f.load, { maxStaleMs: 1_000, tables: ['t'] });
    snap.get('ws');
    await settle();
    vi.advanceTimersByTime(60_000); // a quiet minute, searches finding no write since the load
    expect(await snap.get('ws')).toBe('v0');
    f.write('v1');
    vi.advanceTimersByTime(400);
    expect(await snap.get('ws')).toBe('v0'); // at most 0.4 s stale: served, and reloaded in the background
    await settle();
    expect(await snap.get('ws')).toBe('v1');
    expect(f.loads()).toBe(2);

    // With no search between the load and the write, the load's start is all it knows.
    const quiet = fixture();
    const unseen = snapshotAtRest(quiet.db, quiet.load, { maxStaleMs: 1_000, tables: ['t'] });
    unseen.get('ws');
    await settle();
    vi.advanceTimersByTime(60_000);
    quiet.write('v1');
    expect(unseen.get('ws')).toBeNull();
  });

  it('stays fresh through writes to tables it is not read from', async () => {
    const f = fixture();
    const snap = snapshotAtRest(f.db, f.load, { maxStaleMs: 0, tables: ['t'] });
    snap.get('ws');
    await settle();
    f.write('ignored', 'other');
    expect(await snap.get('ws')).toBe('v0');
    expect(f.loads()).toBe(1);
  });

  it('past the staleness bound, answers null (read per query) rather than miss writes', async () => {
    const f = fixture();
    const snap = snapshotAtRest(f.db, f.load, { maxStaleMs: 0, tables: ['t'] });
    snap.get('ws');
    await settle();
    f.write('v1');
    expect(snap.get('ws')).toBeNull();
    await settle();
    expect(await snap.get('ws')).toBe('v1');
  });

  it('keeps one load at a time per workspace, and a failed load leaves the path reading per query', async () => {
    const f = fixture();
    let fail = true;
    const snap = snapshotAtRest(
      f.db,
      async () => {
        if (fail) throw new Error('down');
        return f.load();
      },
      { tables: ['t'] },
    );
    expect(snap.get('ws')).toBeNull();
    expect(snap.get('ws')).toBeNull();
    await settle();
    expect(snap.get('ws')).toBeNull(); // the failed load left nothing
    fail = false;
    vi.advanceTimersByTime(600);
    snap.get('ws');
    await settle();
    expect(await snap.get('ws')).toBe('v0');
    expect(f.loads()).toBe(1);
  });

  describe('cachedRead (a read whose per-query form is the whole load)', () => {
    it('past the staleness bound, every search asking meanwhile shares one load, and sees the write', async () => {
      const f = fixture();
      const read = cachedRead(f.db, f.load, { maxStaleMs: 1_000, tables: ['t'], serverTtlMs: 60_000 });
      expect(await read('ws')).toBe('v0');
      f.write('v1');
      vi.advanceTimersByTime(1_100);
      const answers = await Promise.all([read('ws'), read('ws'), read('ws'), read('ws')]);
      expect(answers).toEqual(['v1', 'v1', 'v1', 'v1']);
      expect(f.loads()).toBe(2);
    });

    it('does not hand a search a load that began before the bound: it waits for one begun after', async () => {
      const f = fixture();
      let release: (() => void) | undefined;
      let slow = false;
      const read = cachedRead(
        f.db,
        async (ws) => {
          const value = await f.load(ws);
          if (slow) await new Promise<void>((resolve) => (release = resolve));
          return value;
        },
        { maxStaleMs: 1_000, tables: ['t'], serverTtlMs: 60_000 },
      );
      expect(await read('ws')).toBe('v0');
      f.write('v1');
      slow = true;
      vi.advanceTimersByTime(1_100);
      const first = read('ws'); // begins a load, which reads v1 and then hangs
      await settle();
      f.write('v2');
      vi.advanceTimersByTime(1_100); // that load is now older than the bound
      slow = false;
      const second = read('ws');
      release!();
      expect(await first).toBe('v1');
      expect(await second).toBe('v2');
      expect(f.loads()).toBe(3);
    });

    it('a failed load reaches the searches waiting for it, and the next search loads again', async () => {
      const f = fixture();
      let fail = false;
      const read = cachedRead(
        f.db,
        async (ws) => {
          if (fail) throw new Error('down');
          return f.load(ws);
        },
        { maxStaleMs: 0, tables: ['t'], serverTtlMs: 60_000 },
      );
      expect(await read('ws')).toBe('v0');
      f.write('v1');
      fail = true;
      await expect(read('ws')).rejects.toThrow('down');
      fail = false;
      expect(await read('ws')).toBe('v1');
    });

    it('on a Postgres server, keeps a copy for the TTL', async () => {
      const f = fixture('postgres');
      const read = cachedRead(f.db, f.load, { tables: ['t'], serverTtlMs: 60_000 });
      expect(await read('ws')).toBe('v0');
      f.write('v1');
      expect(await read('ws')).toBe('v0');
      expect(f.loads()).toBe(1);
    });
  });
});
