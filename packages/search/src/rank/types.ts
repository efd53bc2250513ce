/** A fused first-stage candidate, as the second stage (rerankers, LLM scorer) sees it. */
export interface Candidate {
  id: string;
  title: string;
  /** Short preview text (~300 chars). */
  snippet: string;
  /** Full text, when the reranker wants it (cross-encoder, LLM); may be truncated by the caller. */
  content: string;
  type: string;
  source: string;
  occurredAt: string;
  /** Fused first-stage score in [0, 1]. */
  fused: number;
  /** Each retrieval path's score in [0, 1] (0 when the path did not return the item). */
  paths: { lexical: number; vector: number; entity: number; cluster: number; actor: number };
  /**
   * Raw per-candidate signals: bm25, bm25Title, bm25Body, bm25Paths, matchedTerms, titleTerms,
   * titleCoverage, idfCovered, cosine, entityMatches, recencyDays, isBot, isMergedPr, releaseNote, commitsFolded,
   * titleLength, bodyLength ... (absent = 0).
   */
  signals: Record<string, number>;
}

export interface RerankOptions {
  signal?: AbortSignal;
}

/** Second stage: scores in [0, 1] for the given candidates, same order. */
export interface Reranker {
  readonly name: string;
  /** Whether it reads the `areaTitleLift` signal, which the service computes only for a reranker that does. */
  readonly readsAreaSignal?: boolean;
  rerank(query: string, candidates: Candidate[], options?: RerankOptions): Promise<number[]>;
}
