import { describe, expect, it } from 'vitest';
import { textHash, withEmbeddingCache } from '../src/embeddings/cache.js';
import { createMemoryEmbeddingCache } from '../src/testing/memoryEmbeddingCache.js';
import type { EmbeddingProvider } from '../src/embeddings/types.js';
import { normalizeVector } from '../src/embeddings/vectors.js';

/** A provider that records what it was asked to embed (a test double for an external model). */
function countingProvider(model = 'counting-3') {
  const calls: string[][] = [];
  const provider: EmbeddingProvider = {
    model,
    dimensions: 3,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((text) => normalizeVector([text.length, text.charCodeAt(0) || 1, 1]));
    },
    async close() {},
  };
  return { provider, calls };
}

describe('withEmbeddingCache', () => {
  it('embeds each distinct text once and answers repeats from the cache', async () => {
    const { provider, calls } = countingProvider();
    const cache = createMemoryEmbeddingCache();
    const cached = withEmbeddingCache(provider, cache);

    const first = await cached.embed(['fix parser', 'add docs', 'fix parser']);
    expect(calls).toEqual([['fix parser', 'add docs']]);
    expect(first[0]).toEqual(first[2]);
    expect(first[1]).not.toEqual(first[0]);

    const second = await cached.embed(['add docs', 'bump deps', 'fix parser']);
    expect(calls).toEqual([['fix parser', 'add docs'], ['bump deps']]);
    expect(second[0]).toEqual(first[1]);
    expect(second[2]).toEqual(first[0]);
    expect(cache.size('counting-3')).toBe(3);

    await cached.embed(['add docs', 'fix parser']);
    expect(calls).toHaveLength(2);
  });

  it('keys vectors by model so two providers never share them', async () => {
    const cache = createMemoryEmbeddingCache();
    const a = countingProvider('model-a');
    const b = countingProvider('model-b');
    await withEmbeddingCache(a.provider, cache).embed(['same text']);
    await withEmbeddingCache(b.provider, cache).embed(['same text']);
    expect(a.calls).toEqual([['same text']]);
    expect(b.calls).toEqual([['same text']]);
    const stored = await cache.get('model-a', [textHash('same text')]);
    expect([...stored.keys()]).toEqual([textHash('same text')]);
  });

  it('reports the wrapped model and makes no call for an empty list', async () => {
    const { provider, calls } = countingProvider();
    const cached = withEmbeddingCache(provider, createMemoryEmbeddingCache());
    expect(cached.model).toBe('counting-3');
    expect(cached.dimensions).toBe(3);
    expect(await cached.embed([])).toEqual([]);
    expect(calls).toEqual([]);
  });
});
