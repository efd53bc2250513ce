import type { z } from 'zod';
import type {
  ContentsResponseA,
  ErrorBody,
  FindSimilarRequest,
  FindSimilarResponseA,
  ProxyCallResponse,
  ProxySearchResponse,
  RelatedRequest,
  RelatedResponse,
  SearchRequest,
  SearchResponseA,
} from '@engram/contracts';

export interface EngramClientOptions {
  /** Base URL of the Engram api, e.g. `http://localhost:3000`. */
  baseUrl: string;
  apiKey: string;
  /** Sent as `X-Workspace-ID`; without it the key's own workspace applies where the API allows. */
  workspaceId?: string;
  /** Per-request timeout in ms (default 30 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A documented API error: `code` is the stable error code, `data` its details, `requestId` for support. */
export class EngramError extends Error {
  override name = 'EngramError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> | null,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

type Input<S extends z.ZodType> = z.input<S>;

/**
 * Typed client for the query API (`/v1`, Shape A). Request and response types come from the contract
 * package, so they are the server's own schemas.
 */
export function createEngramClient(options: EngramClientOptions) {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function post<T>(path: string, body: unknown): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` };
    if (options.workspaceId) headers['x-workspace-id'] = options.workspaceId;
    const res = await doFetch(`${base}/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body ?? {}), signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      throw new EngramError(res.status, 'INVALID_RESPONSE', `the server answered ${res.status} with a body that is not JSON`, null, res.headers.get('x-request-id') ?? undefined);
    }
    if (!res.ok) {
      const err = (json ?? {}) as Partial<ErrorBody>;
      throw new EngramError(res.status, err.code ?? 'HTTP_ERROR', err.message ?? `HTTP ${res.status}`, err.data ?? null, err.requestId ?? res.headers.get('x-request-id') ?? undefined);
    }
    return json as T;
  }

  return {
    search: (request: Input<typeof SearchRequest>) => post<z.infer<typeof SearchResponseA>>('/search', request),
    contents: (ids: string[]) => post<z.infer<typeof ContentsResponseA>>('/contents', { ids }),
    findSimilar: (request: Input<typeof FindSimilarRequest>) => post<z.infer<typeof FindSimilarResponseA>>('/findsimilar', request),
    related: (request: Input<typeof RelatedRequest>) => post<z.infer<typeof RelatedResponse>>('/related', request),
    proxySearch: () => post<z.infer<typeof ProxySearchResponse>>('/proxy/search', {}),
    proxyCall: (action: string, params: Record<string, unknown> = {}, connectionId?: string) =>
      post<z.infer<typeof ProxyCallResponse>>('/proxy/call', connectionId ? { action, params, connectionId } : { action, params }),
  };
}
export type EngramClient = ReturnType<typeof createEngramClient>;
