import { createHostedReranker, createLearnedReranker, createLlmScorer, type Reranker } from '@engram/search';
import type { Config } from './config.js';

/**
 * The second stages the configuration asks for: a hosted Cohere-compatible cross-encoder when
 * RERANK_URL is set, else the bundled learned reranker; an LLM scorer for `thorough` when LLM_BASE_URL
 * is set (without one, `thorough` answers as `balanced` and `meta.mode` says so).
 */
export function createRankers(config: Config): { reranker: Reranker; llm?: Reranker } {
  return {
    reranker: config.rerank ? createHostedReranker({ url: config.rerank.url, apiKey: config.rerank.apiKey, model: config.rerank.model }) : createLearnedReranker(),
    llm: config.llm ? createLlmScorer({ baseURL: config.llm.baseURL, apiKey: config.llm.apiKey, model: config.llm.model, timeoutMs: config.llm.timeoutMs }) : undefined,
  };
}
