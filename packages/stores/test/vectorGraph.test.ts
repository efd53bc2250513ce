import { describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../src/vector/memoryIndex.js';
import { random } from './seededRandom.js';

// In a file of its own: the first graph starts the scan thread (no exact scan has started it before).

const dims = 32;
/** Clustered vectors, as embeddings are: 200 topics, each chunk a topic plus noise. */
function clustered(seed: number) {
  const next = random(seed);
  const topics = Array.from({ length: 200 }, () => Array.from({ length: dims }, next));
  return { topics, near: (topic: number[], noise: number) => topic.map((x) => x + noise * next()) };
}
const row = (itemId: string, vector: number[], type = 'commit') => ({ id: `c-${itemId}`, itemId, vector, workspaceId: 'w', source: 'github', type, occurredAt: '2026-01-01T00:00:00Z', actorNames: [] });
const cosine = (a: number[], b: number[]) => a.reduce((s, x, d) => s + x * b[d]!, 0) / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));

describe('vector memory index with its graph (an approximate search above a size)', () => {
  const { topics, near } = clustered(23);
  const index = createMemoryIndex({ graphMinRows: 3_000 });
  const records = new Map<string, number[]>();
  const add = (n: number, from: number) => {
    const batch = Array.from({ length: n }, (_, j) => row(`i${from + j}`, near(topics[(from + j) % topics.length]!, 0.6), (from + j) % 2 ? 'commit' : 'pull_request'));
    for (const r of batch) records.set(r.itemId, r.vector);
    index.upsert(batch);
  };
  const exact = (q: number[], k: number, keep: (id: string) => boolean = () => true) =>
    [...records].filter(([id]) => keep(id)).map(([id, v]) => [id, cosine(v, q)] as const).sort((a, b) => b[1] - a[1]).slice(0, k);
  const graphReady = async () => {
    for (let i = 0; i < 1_000 && !index.graphReady('w'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(index.graphReady('w')).toBe(true);
  };

  it('answers exactly below the size and while the graph is built, then from the graph with exact similarities', async () => {
    add(2_900, 0);
    expect(index.graphReady('w')).toBe(false);
    const q0 = near(topics[5]!, 0.6);
    expect((await index.search(q0, { workspaceId: 'w' }, 20)).map((h) => h.itemId)).toEqual(exact(q0, 20).map(([id]) => id));
    // Past 4,096 chunks, where an unfiltered search is the native scan's, so the graph answers once built.
    add(1_700, 2_900);
    // Built in slices: the first search after the size is reached is still the exact scan's.
    expect(index.graphReady('w')).toBe(false);
    expect((await index.search(q0, { workspaceId: 'w' }, 20)).map((h) => h.itemId)).toEqual(exact(q0, 20).map(([id]) => id));
    await graphReady();
    let found = 0;
    for (let t = 0; t < 20; t++) {
      const q = near(topics[t * 7]!, 0.6);
      const hits = await index.search(q, { workspaceId: 'w' }, 20);
      expect(hits).toHaveLength(20);
      // Each hit's similarity is its exact cosine, and the hits are in that order.
      for (const h of hits) expect(h.similarity).toBeCloseTo(cosine(records.get(h.itemId)!, q), 4);
      expect(hits.map((h) => h.similarity)).toEqual([...hits.map((h) => h.similarity)].sort((a, b) => b - a));
      const truth = new Set(exact(q, 20).map(([id]) => id));
      found += hits.filter((h) => truth.has(h.itemId)).length;
    }
    // Approximate: nearly every true neighbour is found.
    expect(found / (20 * 20)).toBeGreaterThan(0.9);
    expect(index.graphSearches('w').searches).toBe(20);
  });

  it('keeps a filtered search exact', async () => {
    const q = near(topics[11]!, 0.6);
    const hits = await index.search(q, { workspaceId: 'w', types: ['pull_request'] }, 15);
    expect(hits.map((h) => h.itemId)).toEqual(exact(q, 15, (id) => Number(id.slice(1)) % 2 === 0).map(([id]) => id));
  });

  it('finds chunks added after it was built, never returns removed ones, and follows a replaced vector', async () => {
    const fresh = near(topics[3]!, 0.01);
    records.set('i-new', fresh);
    index.upsert([row('i-new', fresh)]);
    expect((await index.search(fresh, { workspaceId: 'w' }, 1))[0]!.itemId).toBe('i-new');
    const top = (await index.search(near(topics[9]!, 0.6), { workspaceId: 'w' }, 5)).map((h) => h.itemId);
    index.deleteItems('w', top);
    for (const id of top) records.delete(id);
    const after = (await index.search(near(topics[9]!, 0.6), { workspaceId: 'w' }, 50)).map((h) => h.itemId);
    for (const id of top) expect(after).not.toContain(id);
    // The same item re-embedded: its new vector is what is found, with the new similarity.
    const moved = near(topics[150]!, 0.01);
    records.set('i-new', moved);
    index.upsert([row('i-new', moved)]);
    const hit = (await index.search(moved, { workspaceId: 'w' }, 1))[0]!;
    expect(hit.itemId).toBe('i-new');
    expect(hit.similarity).toBeCloseTo(1, 3);
    expect((await index.search(fresh, { workspaceId: 'w' }, 3)).map((h) => h.itemId)).not.toContain('i-new');
  });

  it('rebuilds a graph that holds many removed chunks, and answers meanwhile', async () => {
    // More than a quarter of the graph's chunks: it is stale.
    const gone = [...records.keys()].slice(0, 1_201);
    index.deleteItems('w', gone);
    for (const id of gone) records.delete(id);
    expect(index.graphReady('w')).toBe(true);
    add(10, 10_000);
    // The rebuild has begun: searches scan exactly until it is ready.
    expect(index.graphReady('w')).toBe(false);
    const q = near(topics[42]!, 0.6);
    expect((await index.search(q, { workspaceId: 'w' }, 10)).map((h) => h.itemId)).toEqual(exact(q, 10).map(([id]) => id));
    await graphReady();
    const hits = await index.search(q, { workspaceId: 'w' }, 10);
    for (const h of hits) expect(records.has(h.itemId)).toBe(true);
    const truth = new Set(exact(q, 10).map(([id]) => id));
    expect(hits.filter((h) => truth.has(h.itemId)).length).toBeGreaterThanOrEqual(8);
  });
});

describe('vector memory index: a graph search scored on the scan thread', () => {
  const { topics, near } = clustered(31);
  // Above the size from which unfiltered searches use the native scan (4,096 chunks), so the graph answers.
  const index = createMemoryIndex({ graphMinRows: 3_000 });
  const records = new Map<string, number[]>();
  const batch = Array.from({ length: 6_000 }, (_, i) => {
    const vector = near(topics[i % topics.length]!, 0.6);
    records.set(`i${i}`, vector);
    return row(`i${i}`, vector);
  });
  const exactHits = async (q: number[], k: number) => {
    const hits = await index.search(q, { workspaceId: 'w' }, k);
    expect(hits).toHaveLength(k);
    for (const h of hits) expect(h.similarity).toBeCloseTo(cosine(records.get(h.itemId)!, q), 4);
    return hits;
  };

  it('scores on the scan thread at the rows it heard of, and here when a removal moved one meanwhile', async () => {
    index.upsert(batch);
    for (let i = 0; i < 1_000 && !index.graphReady('w'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(index.graphReady('w')).toBe(true);
    // Removals move rows (the last row into each hole), and the thread hears of the moves. The searches
    // are about the topics of the last rows (item i is about topic i % 200), the chunks that moved.
    const removed = [...records.keys()].filter((id) => Number(id.slice(1)) % 97 === 5);
    index.deleteItems('w', removed);
    for (const id of removed) records.delete(id);
    for (let t = 0; t < 10; t++) await exactHits(near(topics[140 + t * 6]!, 0.6), 20);
    const settled = index.graphSearches('w');
    expect(settled.searches).toBe(10);
    expect(settled.scoredHere).toBe(0);

    // A search sent before removals that move rows: what the thread scored no longer holds, so it is scored here.
    const q = near(topics[77]!, 0.6);
    const gone = (await exactHits(q, 30)).slice(0, 10).map((h) => h.itemId);
    const pending = index.search(q, { workspaceId: 'w' }, 30);
    index.deleteItems('w', gone);
    for (const id of gone) records.delete(id);
    const hits = await pending;
    expect(hits).toHaveLength(30);
    for (const h of hits) {
      expect(gone).not.toContain(h.itemId);
      expect(h.similarity).toBeCloseTo(cosine(records.get(h.itemId)!, q), 4);
    }
    expect(index.graphSearches('w')).toEqual({ searches: 12, scoredHere: 1 });
  });
});
