import type { Db } from '@engram/stores';
import { describe, expect, it } from 'vitest';
import { snapshotAtRest } from '../src/paths/atRest.js';

/** A database that only counts writes, and a loader that reads "the rows" as they are when it runs. */
function fixture(kind: 'pglite' | 'postgres' = 'pglite') {
  let writes = 0;
  let rows = 'v0';
  let loads = 0;
  const db = { kind, writeCount: () => writes } as unknown as Db;
  const write = (value: string) => {
    rows = value;
    writes++;
  };
  const load = async () => {
    loads++;
    return rows;
  };
  return { db, write, load, loads: () => loads };
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('snapshotAtRest', () => {
  it('reads per query on a Postgres server, where other processes write', async () => {
    const f = fixture('postgres');
    const snap = snapshotAtRest(f.db, f.load);
    expect(snap.get('ws')).toBeNull();
    await settle();
    expect(snap.get('ws')).toBeNull();
    expect(f.loads()).toBe(0);
  });

  it('loads in the background, then serves the snapshot until a write', async () => {
    const f = fixture();
    const snap = snapshotAtRest(f.db, f.load);
    expect(snap.get('ws')).toBeNull(); // the first search reads per query; the load has begun
    await settle();
    expect(await snap.get('ws')).toBe('v0');
    expect(await snap.get('ws')).toBe('v0');
    expect(f.loads()).toBe(1);
  });

  it('while writes go on, serves the recent snapshot and reloads it in the background', async () => {
    const f = fixture();
    const snap = snapshotAtRest(f.db, f.load, 60_000);
    snap.get('ws');
    await settle();
    f.write('v1');
    expect(await snap.get('ws')).toBe('v0'); // stale but within the bound: no per-query read
    await settle();
    expect(await snap.get('ws')).toBe('v1');
    expect(f.loads()).toBe(2);
  });

  it('past the staleness bound, answers null (read per query) rather than miss writes', async () => {
    const f = fixture();
    const snap = snapshotAtRest(f.db, f.load, 0);
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
    const snap = snapshotAtRest(f.db, async (ws) => {
      if (fail) throw new Error('down');
      return f.load();
    });
    expect(snap.get('ws')).toBeNull();
    expect(snap.get('ws')).toBeNull();
    await settle();
    expect(snap.get('ws')).toBeNull(); // the failed load left nothing (and its pacing delay is short)
    fail = false;
    await settle();
    snap.get('ws');
    await settle();
    expect(await snap.get('ws')).toBe('v0');
    expect(f.loads()).toBe(1);
  });
});
