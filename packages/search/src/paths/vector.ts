import type { VectorStore } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
import { timed, type PathResult } from './types.js';

/** Below this cosine a sentence-encoder neighbour is noise, not a match: it does not count in `total`. */
export const VECTOR_FLOOR = 0.3;

/** The vector path: nearest chunks in the vector store, filters applied inside the search. */
export function vectorPath(vectors: VectorStore, filter: ItemFilter, queryVector: number[], k: number): Promise<PathResult> {
  return timed(async () => {
    const hits = await vectors.search(queryVector, filter, k);
    const scores = new Map<string, number>();
    const signals = new Map<string, Record<string, number>>();
    for (const h of hits) {
      if (h.similarity < VECTOR_FLOOR) continue;
      scores.set(h.itemId, Math.max(0, Math.min(1, h.similarity)));
      signals.set(h.itemId, { cosine: h.similarity });
    }
    return { scores, signals };
  });
}
