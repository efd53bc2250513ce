/** One retrieval path's candidates: item id -> a score in [0, 1] that means the same across queries. */
export interface PathResult {
  scores: Map<string, number>;
  ms: number;
  /** Per-candidate raw signals the reranker reads as features (BM25 per field, cosine ...). */
  signals?: Map<string, Record<string, number>>;
}

export const emptyPath = (ms = 0): PathResult => ({ scores: new Map(), ms });

export async function timed(fn: () => Promise<Omit<PathResult, 'ms'>>): Promise<PathResult> {
  const started = performance.now();
  const res = await fn();
  return { ...res, ms: performance.now() - started };
}
