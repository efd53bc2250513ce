import type { z } from 'zod';
import type {
  ContentsResponseA,
  FindSimilarRequest,
  FindSimilarResponseA,
  ProxyCallResponse,
  ProxySearchResponse,
  RelatedRequest,
  RelatedResponse,
  SearchRequest,
  SearchResponseA,
} from '@engram/contracts';
import type { EngramError } from './errors.js';
import { createTransport, type CallOptions, type RetryOptions } from './transport.js';

export { EngramError, retryAfterMs } from './errors.js';
export type { CallOptions, RetryOptions } from './transport.js';

export interface EngramClientOptions {
  /** Base URL of the Engram api, e.g. `http://localhost:3000`. */
  baseUrl: string;
  apiKey: string;
  /** Sent as `X-Workspace-ID`; without it the key's own workspace applies where the API allows. */
  workspaceId?: string;
  /** Per-attempt timeout in ms (default 30 000). */
  timeoutMs?: number;
  /** Retries of idempotent calls on 429, 5xx, timeouts and network errors, honouring `Retry-After`. */
  retry?: RetryOptions;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (info: { attempt: number; delayMs: number; error: EngramError }) => void;
  fetch?: typeof fetch;
}

export type SearchInput = z.input<typeof SearchRequest>;
export type SearchResponse = z.infer<typeof SearchResponseA>;
export type ContentsResponse = z.infer<typeof ContentsResponseA>;
export type FindSimilarInput = z.input<typeof FindSimilarRequest>;
export type FindSimilarResponse = z.infer<typeof FindSimilarResponseA>;
export type RelatedInput = z.input<typeof RelatedRequest>;
export type RelatedGraphResponse = z.infer<typeof RelatedResponse>;

/** The API answers at most offset 10 000 (spec): paging stops there. */
const MAX_OFFSET = 10_000;

/**
 * Typed client for the query API (`/v1`, Shape A). Request and response types come from the contract
 * package, so they are the server's own schemas. Every read is retried (they are all idempotent, even
 * over POST); `proxyCall` may change the provider's state, so it is never repeated.
 */
export function createEngramClient(options: EngramClientOptions) {
  const transport = createTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}),
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000, ...options.retry },
    fetch: options.fetch ?? fetch,
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  });
  const { post } = transport;

  const search = (request: SearchInput, call?: CallOptions) => post<SearchResponse>('/search', request, call);

  /**
   * Every page of a search, in order: one request per page of `request.limit` (default 10) results,
   * starting at `request.offset`, until `meta.total` is reached, a page comes back short, or the
   * API's offset bound (10 000). Break out of the loop to stop early.
   */
  async function* searchPages(request: SearchInput, call?: CallOptions): AsyncGenerator<SearchResponse, void, undefined> {
    const limit = request.limit ?? 10;
    for (let offset = request.offset ?? 0; offset <= MAX_OFFSET; offset += limit) {
      const page = await search({ ...request, limit, offset }, call);
      yield page;
      if (page.data.length < limit || offset + limit >= page.meta.total) return;
    }
  }

  return {
    search,
    searchPages,
    contents: (ids: string[], call?: CallOptions) => post<ContentsResponse>('/contents', { ids }, call),
    findSimilar: (request: FindSimilarInput, call?: CallOptions) => post<FindSimilarResponse>('/findsimilar', request, call),
    related: (request: RelatedInput, call?: CallOptions) => post<RelatedGraphResponse>('/related', request, call),
    proxySearch: (call?: CallOptions) => post<z.infer<typeof ProxySearchResponse>>('/proxy/search', {}, call),
    proxyCall: (action: string, params: Record<string, unknown> = {}, connectionId?: string, call?: CallOptions) =>
      post<z.infer<typeof ProxyCallResponse>>('/proxy/call', connectionId ? { action, params, connectionId } : { action, params }, call, false),
  };
}
export type EngramClient = ReturnType<typeof createEngramClient>;
