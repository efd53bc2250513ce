import { describe, expect, it } from 'vitest';
import { createCoalescingEmbedder } from '../src/embeddings/coalesce.js';
import type { EmbeddingProvider } from '../src/embeddings/types.js';

function recordingProvider(): EmbeddingProvider & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    model: 'recording',
    dimensions: 2,
    calls,
    async embed(texts) {
      calls.push(texts);
      return texts.map((t) => [t.length, 1]);
    },
    async close() {},
  };
}

describe('coalescing embedder', () => {
  it('serves concurrent single-text calls with one batch, each caller getting its own vectors', async () => {
    const inner = recordingProvider();
    const embedder = createCoalescingEmbedder(inner, { maxBatch: 8, maxWaitMs: 20 });
    const out = await Promise.all(['a', 'bb', 'ccc'].map((t) => embedder.embed([t])));
    expect(inner.calls).toEqual([['a', 'bb', 'ccc']]);
    expect(out).toEqual([[[1, 1]], [[2, 1]], [[3, 1]]]);
  });

  it('flushes as soon as a batch is full, and passes large calls straight through', async () => {
    const inner = recordingProvider();
    const embedder = createCoalescingEmbedder(inner, { maxBatch: 2, maxWaitMs: 10_000 });
    await Promise.all([embedder.embed(['a']), embedder.embed(['b'])]);
    await embedder.embed(['x', 'y', 'z']);
    expect(inner.calls).toEqual([['a', 'b'], ['x', 'y', 'z']]);
  });

  it('rejects every caller of a failed batch', async () => {
    const embedder = createCoalescingEmbedder(
      { model: 'm', dimensions: 1, embed: () => Promise.reject(new Error('model crashed')), close: async () => {} },
      { maxWaitMs: 5 },
    );
    const results = await Promise.allSettled([embedder.embed(['a']), embedder.embed(['b'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
