import { describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../src/vector/memoryIndex.js';
import { random } from './seededRandom.js';

// In a file of its own: the graph starts the scan thread, and its size decides when the int8 copy exists.

describe('vector memory index: the int8 copy and the graph', () => {
  const dims = 16;
  const next = random(41);
  const topics = Array.from({ length: 300 }, () => Array.from({ length: dims }, next));
  const near = (topic: number[], noise: number) => topic.map((x) => x + noise * next());
  const index = createMemoryIndex({ graphMinRows: 17_500 });
  const records = new Map<string, number[]>();
  const row = (itemId: string, vector: number[]) => ({ id: `c-${itemId}`, itemId, vector, workspaceId: 'w', source: 'github', type: 'commit', occurredAt: '2026-01-01T00:00:00Z', actorNames: [] });
  const add = (n: number, from: number) => {
    const batch = Array.from({ length: n }, (_, j) => row(`i${from + j}`, near(topics[(from + j) % topics.length]!, 0.5)));
    for (const r of batch) records.set(r.itemId, r.vector);
    index.upsert(batch);
  };
  const cosine = (a: number[], b: number[]) => a.reduce((s, x, d) => s + x * b[d]!, 0) / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
  const exact = (q: number[], k: number) => [...records].map(([id, v]) => [id, cosine(v, q)] as const).sort((a, b) => b[1] - a[1]).slice(0, k).map(([id]) => id);
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 2_000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(done()).toBe(true);
  };

  it('holds the int8 copy only while no graph answers: dropped once the graph is ready, built again while a stale graph is rebuilt', async () => {
    add(17_000, 0);
    await index.warm();
    // 16-bit rows, and an int8 copy of half their size.
    const rowBytes = index.memory().rowBytes;
    expect(rowBytes).toBeGreaterThanOrEqual(17_000 * dims * 2);
    expect(rowBytes).toBeLessThan(17_000 * dims * 4);
    // Above the int8 copy's size and below the graph's: searches pre-scan the copy, and answer exactly.
    expect(index.memory().int8Bytes).toBe(rowBytes / 2);
    const q = near(topics[7]!, 0.5);
    expect((await index.search(q, { workspaceId: 'w' }, 10)).map((h) => h.itemId)).toEqual(exact(q, 10));

    add(8_000, 17_000);
    await until(() => index.graphReady('w'));
    expect(index.memory().int8Bytes).toBe(0);
    const hits = await index.search(q, { workspaceId: 'w' }, 10);
    for (const h of hits) expect(h.similarity).toBeCloseTo(cosine(records.get(h.itemId)!, q), 4);
    expect(hits.filter((h) => exact(q, 10).includes(h.itemId)).length).toBeGreaterThanOrEqual(9);

    // A fifth of the chunks removed: the graph is stale and built again; meanwhile searches are exact, and the copy
    // they pre-scan comes back, to be dropped again once the new graph is ready.
    const gone = [...records.keys()].slice(0, 5_100);
    index.deleteItems('w', gone);
    for (const id of gone) records.delete(id);
    add(10, 30_000);
    expect(index.graphReady('w')).toBe(false);
    const q2 = near(topics[123]!, 0.5);
    expect((await index.search(q2, { workspaceId: 'w' }, 10)).map((h) => h.itemId)).toEqual(exact(q2, 10));
    await until(() => index.memory().int8Bytes > 0);
    expect((await index.search(q2, { workspaceId: 'w' }, 10)).map((h) => h.itemId)).toEqual(exact(q2, 10));
    await until(() => index.graphReady('w') && index.memory().int8Bytes === 0);
    for (const h of await index.search(q2, { workspaceId: 'w' }, 10)) expect(records.has(h.itemId)).toBe(true);
  });
});
