/**
 * Octokit for one GitHub connection: waits on primary and secondary rate limits (never drops a
 * request), retries 5xx with backoff, reports both through the sync observer, and revalidates
 * repeated GETs with ETags so an unchanged page costs a 304 instead of rate-limit budget.
 */
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import type { SyncObserver } from '../types.js';

export interface GitHubClientOptions {
  token: string;
  /** REST base, e.g. `https://api.github.com` or `https://ghe.example.com/api/v3`. */
  baseUrl: string;
  observer?: SyncObserver;
  /** Retries of a 5xx or network failure (default 3). */
  retries?: number;
  /** Backoff unit: the n-th retry waits n² × this (default 1000 ms, the plugin's own). */
  retryBaseMs?: number;
  /** Responses kept for ETag revalidation (default 200). */
  etagCacheSize?: number;
  /**
   * Deadline of one HTTP attempt, body included (default 30 s). A provider that hangs costs this much,
   * then the attempt fails like a network error and is retried.
   */
  requestTimeoutMs?: number;
}

export const DEFAULT_GITHUB_REQUEST_TIMEOUT_MS = 30_000;

export type GitHubClient = InstanceType<typeof Octokit>;

interface FailedAttempt { status?: number; message?: string }
interface AttemptOptions { method?: string; url?: string; request?: { retryCount?: number } }

let clientCount = 0;

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const retries = options.retries ?? 3;
  const { observer } = options;
  // Registered before the throttling and retry plugins, so its hook sees every single HTTP attempt.
  const reportRetries: Parameters<typeof Octokit.plugin>[0] = (octokit) => {
    octokit.hook.error('request', (failure, options) => {
      const error = failure as FailedAttempt;
      const attempt = options as AttemptOptions;
      const status = error.status;
      const transient = status === undefined || status >= 500;
      const attemptNo = (attempt.request?.retryCount ?? 0) + 1;
      if (transient && attemptNo <= retries) {
        observer?.onRetry?.({ attempt: attemptNo, ...(status !== undefined ? { status } : {}), reason: `${attempt.method ?? 'GET'} ${attempt.url ?? ''} failed: ${error.message ?? status}` });
      }
      throw failure;
    });
  };
  const Client = Octokit.plugin(reportRetries, throttling, retry);
  const octokit = new Client({
    auth: options.token,
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    userAgent: 'engram-github-connector',
    retry: { retries, retryAfterBaseValue: options.retryBaseMs ?? 1000 },
    throttle: {
      id: `engram-github-${++clientCount}`,
      onRateLimit: (retryAfter, req) => {
        observer?.onRateLimitWait?.({ ms: retryAfter * 1000, reason: `primary rate limit exhausted (${req.method} ${req.url})` });
        return true;
      },
      onSecondaryRateLimit: (retryAfter, req) => {
        observer?.onRateLimitWait?.({ ms: retryAfter * 1000, reason: `secondary rate limit (${req.method} ${req.url})` });
        return true;
      },
    },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    request: { fetch: boundedFetch(options.requestTimeoutMs ?? DEFAULT_GITHUB_REQUEST_TIMEOUT_MS) },
  });
  installEtagCache(octokit, options.etagCacheSize ?? 200);
  return octokit;
}

/**
 * `fetch` with a deadline per attempt, and a JSON body that does not parse (a connection cut mid-body)
 * turned into a failed attempt. Octokit would otherwise hand the raw text on as the response data, and a
 * page of a list would read as a string. Both failures reach Octokit as network errors (status 500), which
 * the retry plugin retries.
 */
function boundedFetch(timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await fetch(input, { ...init, signal });
    if (!/^application\/(scim\+)?json\b/i.test(response.headers.get('content-type') ?? '') || response.status === 204) return response;
    const text = await response.text();
    if (response.ok) {
      try {
        JSON.parse(text);
      } catch {
        throw new TypeError(`GitHub answered ${response.status} with a JSON body that does not parse (${text.length} bytes): the response was cut short`);
      }
    }
    const copy = new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(copy, 'url', { value: response.url });
    return copy;
  };
}

interface CachedResponse { etag: string; response: { status: number; url: string; headers: Record<string, unknown>; data: unknown } }

/** Outermost hook: sends `If-None-Match` for a GET seen before and turns a 304 into the cached answer. */
function installEtagCache(octokit: GitHubClient, maxEntries: number): void {
  if (maxEntries <= 0) return;
  const cache = new Map<string, CachedResponse>();
  octokit.hook.wrap('request', async (request, options) => {
    const headers = options.headers as Record<string, string | undefined>;
    if (options.method !== 'GET' || headers['if-none-match']) return request(options);
    const key = octokit.request.endpoint.parse(options).url;
    const hit = cache.get(key);
    if (hit) headers['if-none-match'] = hit.etag;
    try {
      const response = await request(options);
      const etag = response.headers.etag;
      cache.delete(key);
      if (etag) {
        cache.set(key, { etag, response: response as CachedResponse['response'] });
        if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      }
      return response;
    } catch (error) {
      if (hit && (error as FailedAttempt).status === 304) {
        cache.delete(key);
        cache.set(key, hit);
        const fresh = (error as { response?: { headers?: Record<string, unknown> } }).response?.headers ?? {};
        return { ...hit.response, headers: { ...hit.response.headers, ...fresh } } as Awaited<ReturnType<typeof request>>;
      }
      throw error;
    }
  });
}
