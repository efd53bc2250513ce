// A test helper for embeddings; re-exported from the package's `testing` entry, never the barrel.
import type { EmbeddingCache } from '../embeddings/types.js';

export interface MemoryEmbeddingCache extends EmbeddingCache {
  /** Number of vectors stored for a model (all models when omitted). */
  size(model?: string): number;
}

/** An EmbeddingCache held in a Map, for tests. */
export function createMemoryEmbeddingCache(): MemoryEmbeddingCache {
  const byModel = new Map<string, Map<string, number[]>>();
  return {
    async get(model, hashes) {
      const stored = byModel.get(model);
      const found = new Map<string, number[]>();
      for (const hash of hashes) {
        const vector = stored?.get(hash);
        if (vector) found.set(hash, [...vector]);
      }
      return found;
    },
    async put(model, entries) {
      const stored = byModel.get(model) ?? new Map<string, number[]>();
      byModel.set(model, stored);
      for (const { hash, vector } of entries) stored.set(hash, [...vector]);
    },
    size(model) {
      if (model !== undefined) return byModel.get(model)?.size ?? 0;
      let total = 0;
      for (const stored of byModel.values()) total += stored.size;
      return total;
    },
  };
}
