// TEST EMBEDDER: for tests only, never for production. A deterministic bag-of-words embedding
// (feature hashing of lower-cased words into `dimensions` buckets, L2-normalised): texts sharing words
// land close together, it needs no model, and it counts what it was asked to embed.
import { createHash } from 'node:crypto';
import type { EmbeddingProvider } from '../embeddings/index.js';
import { normalizeVector } from '../embeddings/index.js';

export interface CountingEmbedder extends EmbeddingProvider {
  /** Texts embedded so far (every call's texts, in order). */
  readonly embedded: string[];
}

const bucket = (word: string, dimensions: number): number => createHash('sha1').update(word).digest().readUInt32BE(0) % dimensions;

export function createHashEmbedder(options: { dimensions?: number; model?: string } = {}): CountingEmbedder {
  const dimensions = options.dimensions ?? 64;
  const embedded: string[] = [];
  return {
    model: options.model ?? `test-hash-${dimensions}`,
    dimensions,
    embedded,
    async embed(texts) {
      embedded.push(...texts);
      return texts.map((text) => {
        const v: number[] = new Array<number>(dimensions).fill(0);
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) v[bucket(word, dimensions)]! += 1;
        if (!v.some((x) => x !== 0)) v[0] = 1;
        return normalizeVector(v);
      });
    },
    async close() {},
  };
}

/** Wraps any provider (the real offline one in tests) so a test can count what reached it. */
export function countingEmbedder(inner: EmbeddingProvider): CountingEmbedder {
  const embedded: string[] = [];
  return {
    model: inner.model,
    dimensions: inner.dimensions,
    embedded,
    async embed(texts, options) {
      embedded.push(...texts);
      return inner.embed(texts, options);
    },
    close: () => inner.close(),
  };
}
