/** One retrieval path's candidates: item id -> a score in [0, 1] that means the same across queries. */
export interface PathResult {
  scores: Map<string, number>;
  ms: number;
  /** Per-candidate raw signals the reranker reads as features (BM25 per field, cosine ...). */
  signals?: PathSignals;
  /**
   * The read model's document ordinal of each id of `scores`, in the map's order, where the path has them
   * (lexical, entity): a hint that spares the pool a lookup by id (`changeRows` checks it).
   */
  docs?: readonly number[];
}

/**
 * A path's signals by candidate id. A `Map` is one; the lexical path keeps its own in a typed table and
 * makes a candidate's record only when asked (`LexicalSignals`). A record got is the caller's to keep.
 */
export interface PathSignals {
  get(id: string): Readonly<Record<string, number>> | undefined;
  /** One signal of a candidate, with no record made (fusion reads two of every pooled result's). */
  signal?(id: string, name: string): number | undefined;
}

export const emptyPath = (ms = 0): PathResult => ({ scores: new Map(), ms });

export async function timed(fn: () => Promise<Omit<PathResult, 'ms'>>): Promise<PathResult> {
  const started = performance.now();
  const res = await fn();
  return { ...res, ms: performance.now() - started };
}
