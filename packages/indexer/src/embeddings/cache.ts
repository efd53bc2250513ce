// Wraps a provider so that each distinct text is embedded once per model: vectors are looked up by
// (model, sha256 of the text), only misses reach the provider, and repeats within a call share one
// slot in the request.
import { createHash } from 'node:crypto';
import type { EmbedOptions, EmbeddingCache, EmbeddingProvider } from './types.js';

export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * `writeBehind`: new vectors are stored without waiting (a query's embedding answers as soon as the
 * provider does; a failed store only costs a later miss).
 */
export function withEmbeddingCache(provider: EmbeddingProvider, cache: EmbeddingCache, settings: { writeBehind?: boolean } = {}): EmbeddingProvider {
  async function embed(texts: string[], options?: EmbedOptions): Promise<number[][]> {
    if (texts.length === 0) return [];
    const hashes = texts.map(textHash);
    const firstTextOf = new Map<string, string>();
    hashes.forEach((hash, i) => {
      if (!firstTextOf.has(hash)) firstTextOf.set(hash, texts[i]!);
    });
    const model = provider.model;
    const known = await cache.get(model, [...firstTextOf.keys()]);
    const misses = [...firstTextOf].filter(([hash]) => !known.has(hash));
    if (misses.length > 0) {
      const vectors = await provider.embed(
        misses.map(([, text]) => text),
        options,
      );
      if (vectors.length !== misses.length) {
        throw new Error(`${model} returned ${vectors.length} vectors for ${misses.length} texts`);
      }
      const entries = misses.map(([hash], i) => ({ hash, vector: vectors[i]! }));
      if (settings.writeBehind) void cache.put(model, entries).catch(() => undefined);
      else await cache.put(model, entries);
      for (const { hash, vector } of entries) known.set(hash, vector);
    }
    return hashes.map((hash) => {
      const vector = known.get(hash);
      if (!vector) throw new Error(`embedding cache lost the vector for ${hash}`);
      return vector;
    });
  }

  return {
    get model() {
      return provider.model;
    },
    get dimensions() {
      return provider.dimensions;
    },
    embed,
    close: () => provider.close(),
  };
}
