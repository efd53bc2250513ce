import type { QueryEmbedder } from './types.js';

/**
 * Query embeddings kept in memory, most recently used first: a question asked again (a user paging, an
 * agent retrying, a dashboard refreshing) skips the model and the embedding cache's database read.
 */
export function memoizeEmbedder(embedder: QueryEmbedder, capacity = 2_000): QueryEmbedder {
  const cache = new Map<string, number[]>();
  return {
    model: embedder.model,
    async embed(texts, options) {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      if (missing.length > 0) {
        const vectors = await embedder.embed(missing, options);
        missing.forEach((t, i) => {
          cache.set(t, vectors[i]!);
          if (cache.size > capacity) cache.delete(cache.keys().next().value!);
        });
      }
      return texts.map((t) => {
        const v = cache.get(t)!;
        // Most recently used last, so the oldest is evicted first.
        cache.delete(t);
        cache.set(t, v);
        return v;
      });
    },
  };
}
