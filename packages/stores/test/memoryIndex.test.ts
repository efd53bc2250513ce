import { describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../src/vector/memoryIndex.js';
import { random } from './seededRandom.js';

describe('vector memory index', () => {
  const dims = 32;
  const next = random(42);
  const vector = () => Array.from({ length: dims }, next);
  const index = createMemoryIndex();
  const records: { id: string; itemId: string; vector: number[] }[] = [];
  // 3,300 items, a third with a second chunk (4,400 rows): above the size where the native scan takes over.
  for (let i = 0; i < 3300; i++) {
    records.push({ id: `item${i}`, itemId: `item${i}`, vector: vector() });
    if (i % 3 === 0) records.push({ id: `item${i}#1`, itemId: `item${i}`, vector: vector() });
  }
  // Half the items are commits; one in ten is from 2025.
  const year = (id: string) => (i(id) % 10 === 0 ? 2025 : 2026);
  index.upsert(records.map((r) => ({ ...r, workspaceId: 'w', source: 'github', type: i(r.itemId) % 2 ? 'commit' : 'pull_request', occurredAt: `${year(r.itemId)}-01-01T00:00:00Z`, actorNames: [] })));
  function i(id: string): number {
    return Number(id.replace(/\D/g, ''));
  }
  const cosine = (a: number[], b: number[]) => {
    let d = 0;
    let na = 0;
    let nb = 0;
    for (let x = 0; x < a.length; x++) {
      d += a[x]! * b[x]!;
      na += a[x]! ** 2;
      nb += b[x]! ** 2;
    }
    return d / Math.sqrt(na * nb);
  };
  const bestOf = (q: number[], keep: (itemId: string) => boolean) => {
    const best = new Map<string, number>();
    for (const r of records) if (keep(r.itemId)) best.set(r.itemId, Math.max(best.get(r.itemId) ?? -2, cosine(q, r.vector)));
    return best;
  };
  const bruteForce = (q: number[], k: number, keep: (itemId: string) => boolean = () => true) =>
    [...bestOf(q, keep)].sort((a, b) => b[1] - a[1]).slice(0, k).map(([id]) => id);
  /**
   * Expects a search's hits to be an exact scan's best k: at each place an item that passes, whose exact
   * similarity is the exact ranking's at that place and the one reported. The 16-bit rows move a similarity by
   * ~1e-5, so items whose exact similarities are closer than ROUNDING may trade places.
   */
  const ROUNDING = 5e-5;
  const expectExact = (hits: { itemId: string; similarity: number }[], q: number[], k: number, keep: (itemId: string) => boolean = () => true) => {
    const best = bestOf(q, keep);
    const want = [...best.values()].sort((a, b) => b - a).slice(0, k);
    expect(hits.length).toBe(want.length);
    expect(new Set(hits.map((h) => h.itemId)).size).toBe(hits.length);
    hits.forEach((h, place) => {
      const exact = best.get(h.itemId);
      expect(exact).toBeDefined();
      expect(Math.abs(exact! - want[place]!)).toBeLessThanOrEqual(ROUNDING);
      expect(Math.abs(h.similarity - exact!)).toBeLessThanOrEqual(ROUNDING);
    });
  };

  it('finds the exact best items by their best chunk, unfiltered (native scan) and filtered', async () => {
    for (let t = 0; t < 5; t++) {
      const q = vector();
      expectExact(await index.search(q, { workspaceId: 'w' }, 50), q, 50);
      // Half the chunks pass: read from the native ranking until enough pass, for a few items and for many.
      expectExact(await index.search(q, { workspaceId: 'w', types: ['commit'] }, 20), q, 20, (id) => i(id) % 2 === 1);
      expectExact(await index.search(q, { workspaceId: 'w', types: ['commit'] }, 1_200), q, 1_200, (id) => i(id) % 2 === 1);
      // Most pass, but not the best: the ranking is read further and further until enough do.
      const excluded = bruteForce(q, 300);
      expectExact(await index.search(q, { workspaceId: 'w', excludeItemIds: excluded }, 20), q, 20, (id) => !excluded.includes(id));
      // A tenth pass: scored one by one.
      const in2025 = { workspaceId: 'w', to: '2025-12-31T23:59:59Z' };
      expectExact(await index.search(q, in2025, 20), q, 20, (id) => year(id) === 2025);
      expectExact(await index.search(q, { ...in2025, types: ['pull_request'] }, 400), q, 400, (id) => year(id) === 2025 && i(id) % 2 === 0);
      expect(await index.search(q, { ...in2025, types: ['commit'] }, 20)).toEqual([]);
    }
  });

  it('forgets deleted items and keeps the rest exact after the rows move', async () => {
    index.deleteItems('w', ['item0', 'item3', 'item2999']);
    const q = records.find((r) => r.id === 'item3')!.vector;
    const hits = (await index.search(q, { workspaceId: 'w' }, 10)).map((h) => h.itemId);
    expect(hits).not.toContain('item3');
    const remaining = records.filter((r) => !['item0', 'item3', 'item2999'].includes(r.itemId));
    records.length = 0;
    records.push(...remaining);
    expect(hits).toEqual(bruteForce(q, 10));
    expect((await index.search(q, { workspaceId: 'other' }, 10))).toEqual([]);
  });
});

describe('vector memory index above the int8 pre-scan size', () => {
  const dims = 32;
  const next = random(7);
  const vector = (scale = 1) => Array.from({ length: dims }, () => next() * scale);
  const index = createMemoryIndex();
  const records = new Map<string, number[]>();
  const add = (n: number, from: number, scale = 1) => {
    const batch = Array.from({ length: n }, (_, j) => ({ id: `c${from + j}`, itemId: `i${from + j}`, vector: vector(scale) }));
    for (const r of batch) records.set(r.itemId, r.vector);
    index.upsert(batch.map((r) => ({ ...r, workspaceId: 'w', source: 'github', type: 'commit', occurredAt: '2026-01-01T00:00:00Z', actorNames: [] })));
  };
  const bruteForce = (q: number[], k: number) => {
    const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
    return [...records]
      .map(([id, v]) => [id, v.reduce((a, x, d) => a + x * q[d]!, 0) / (norm(v) * norm(q))] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([id]) => id);
  };

  it('finds the same best items as an exact scan, as rows are added (one wider than the int8 scale) and removed', async () => {
    add(17_000, 0);
    // The first search scans the 16-bit rows while the int8 copy is built in the background.
    expect((await index.search(vector(), { workspaceId: 'w' }, 5)).length).toBe(5);
    await index.warm();
    for (let t = 0; t < 3; t++) {
      const q = vector();
      expect((await index.search(q, { workspaceId: 'w' }, 50)).map((h) => h.itemId)).toEqual(bruteForce(q, 50));
    }
    // After the int8 copy exists: new rows (one that does not fit its scale: a spike on one dimension) and
    // deletes that move rows.
    add(500, 17_000);
    const spike = Array.from({ length: dims }, (_, d) => (d === 3 ? 1 : 0.001));
    records.set('i-spike', spike);
    index.upsert([{ id: 'c-spike', itemId: 'i-spike', vector: spike, workspaceId: 'w', source: 'github', type: 'commit', occurredAt: '2026-01-01T00:00:00Z', actorNames: [] }]);
    const gone = ['i1', 'i500', 'i16999'];
    index.deleteItems('w', gone);
    for (const id of gone) records.delete(id);
    for (let t = 0; t < 3; t++) {
      const q = vector();
      expect((await index.search(q, { workspaceId: 'w' }, 50)).map((h) => h.itemId)).toEqual(bruteForce(q, 50));
    }
    expect((await index.search(spike, { workspaceId: 'w' }, 1)).map((h) => h.itemId)).toEqual(['i-spike']);
    // Rebuilt at the spike's scale: the int8 scan finds it too.
    await index.warm();
    expect((await index.search(spike, { workspaceId: 'w' }, 1)).map((h) => h.itemId)).toEqual(['i-spike']);
  });

  it('rebuilds the int8 copy in the background while rows are added, moved and removed', async () => {
    const d = 64;
    const rand = random(3);
    const unitRow = () => Array.from({ length: d }, () => rand() - 0.5);
    const rows = new Map<string, number[]>();
    const live = createMemoryIndex();
    const put = (itemId: string, v: number[]) => {
      rows.set(itemId, v);
      live.upsert([{ id: `c-${itemId}`, itemId, vector: v, workspaceId: 'w', source: 'github', type: 'commit', occurredAt: '2026-01-01T00:00:00Z', actorNames: [] }]);
    };
    // 20k x 64: two slices of the background build, so writes land between them.
    for (let i = 0; i < 20_000; i++) put(`i${i}`, unitRow());
    await live.warm();
    // A row that does not fit the scale makes the copy stale; the rebuild runs while rows come and go.
    put('wide', Array.from({ length: d }, (_, j) => (j === 5 ? 40 : 0.01)));
    expect((await live.search(rows.get('wide')!, { workspaceId: 'w' }, 1))[0]!.itemId).toBe('wide');
    const rebuilt = live.warm();
    const touched: string[] = [];
    for (let tick = 0; tick < 6; tick++) {
      const gone = [`i${tick * 7}`, `i${19_999 - tick * 3}`];
      live.deleteItems('w', gone);
      for (const id of gone) rows.delete(id);
      for (let j = 0; j < 5; j++) {
        const id = `new${tick}-${j}`;
        put(id, unitRow());
        touched.push(id);
      }
      // Rows moved into the deleted rows' places were written behind or ahead of the build's slices.
      touched.push(`i${19_999 - tick * 3 - 1}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await rebuilt;
    await live.warm();
    for (const id of touched) {
      if (!rows.has(id)) continue;
      expect((await live.search(rows.get(id)!, { workspaceId: 'w' }, 1))[0]!.itemId).toBe(id);
    }
  });

  it('answers the same after warming (the int8 copy built ahead of the first search, as after a load)', async () => {
    const warmed = createMemoryIndex();
    warmed.upsert([...records].map(([itemId, v]) => ({ id: `w-${itemId}`, itemId, vector: v, workspaceId: 'w', source: 'github', type: 'commit', occurredAt: '2026-01-01T00:00:00Z', actorNames: [] })));
    await warmed.warm();
    for (let t = 0; t < 3; t++) {
      const q = vector();
      expect(await warmed.search(q, { workspaceId: 'w' }, 50)).toEqual(await index.search(q, { workspaceId: 'w' }, 50));
    }
  });
});

describe('vector memory index: a scan off the event loop while rows move', () => {
  it('scores the candidates again here when a removal moved rows while the scan thread scored them', async () => {
    const dims = 256;
    const next = random(11);
    const index = createMemoryIndex();
    const records = new Map<string, number[]>();
    const batch = Array.from({ length: 17_000 }, (_, j) => ({ id: `c${j}`, itemId: `i${j}`, vector: Array.from({ length: dims }, () => next()) }));
    for (const r of batch) records.set(r.itemId, r.vector);
    index.upsert(batch.map((r) => ({ ...r, workspaceId: 'w', source: 'github', type: 'commit', occurredAt: '2026-01-01T00:00:00Z', actorNames: [] })));
    await index.warm();
    const q = records.get('i100')!;
    const pending = index.search(q, { workspaceId: 'w' }, 5);
    // The request reaches the scan thread (a few promise turns), which answers from the rows as they are;
    // before its reply is read, removing i100 moves the last row into i100's place.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    const until = Date.now() + 500;
    while (Date.now() < until);
    index.deleteItems('w', ['i100']);
    records.delete('i100');
    const cosine = (a: number[], b: number[]) => a.reduce((s, x, d) => s + x * b[d]!, 0) / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
    const expected = [...records].map(([id, v]) => [id, cosine(v, q)] as const).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([id]) => id);
    const hits = await pending;
    expect(hits.map((h) => h.itemId)).toEqual(expected);
    expect(hits[0]!.similarity).toBeLessThan(0.5);
  });
});
