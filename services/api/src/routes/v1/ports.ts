/**
 * What the query routes need from the search engine (`createSearchService` in @engram/search), written
 * structurally so the routes depend on the contract, not on the engine's internals.
 */
import type { FindSimilarRequest, FindSimilarSourceA, SearchContext, SearchLatency, SearchPaths, SearchRequest, SearchResult, SimilarItemA, SourceEvent } from '@engram/contracts';

export interface SearchOutcome {
  /** The requested page, best first; extra engine fields are dropped by the shape mappers. */
  results: SearchResult[];
  total: number;
  /** Mode that actually ran. */
  mode: string;
  requestedMode?: string;
  paths: SearchPaths;
  latency: SearchLatency;
  context?: SearchContext;
}

export interface FindSimilarOutcome {
  source: FindSimilarSourceA;
  similar: SimilarItemA[];
  total: number;
  inputEmbedding: { found: boolean; generated: boolean };
}

export interface FetchByUrl {
  /** Fetches a provider URL through one of the workspace's connections (null when none can). */
  fetchByUrl?: (url: string, signal?: AbortSignal) => Promise<SourceEvent | null>;
}

export interface SearchEngine {
  search(workspaceId: string, request: SearchRequest): Promise<SearchOutcome>;
  /** Rejects with a `NotFoundError` (or resolves null) when the input is neither indexed nor fetchable. */
  findSimilar(workspaceId: string, request: FindSimilarRequest, options: FetchByUrl): Promise<FindSimilarOutcome | null>;
}
