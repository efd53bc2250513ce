export { createSearchService, DEFAULT_EMBEDDED_CONCURRENCY, RERANK_DEPTH, LLM_DEPTH, type SearchService, type SearchDeps, type SearchOptions, type SearchOutcome, type QueryEmbedder } from './service.js';
export { SIMILARITY_WEIGHTS, type FindSimilarOutcome, type SimilarItem } from './findSimilar.js';
export { createQueryService, type FallbackReason, type QueryService, type QueryServiceDeps, type SearchAnswer } from './queryService.js';
export { DEFAULT_FUSION, PATH_NAMES, type FusionWeights, type PathName } from './fusion.js';
export { DEFAULT_LEXICAL, type LexicalParams } from './paths/lexical.js';
export { escapeHtml, highlight } from './highlight.js';
export { termWeightsOf, topicOf } from './queryText.js';

// Query API operations beside search (owned by the query API work: contents, related graph, provider proxy).
export { getContents, toContentItem, type ContentsResult } from './contents.js';
export { getRelatedGraph, type RelatedGraph } from './related.js';
export * from './rank/index.js';
