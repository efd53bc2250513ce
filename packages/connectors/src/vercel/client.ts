import type { SyncObserver } from '../types.js';

export interface VercelRetryPolicy {
  /** Attempts for a 5xx or network failure before giving up. Default 5. */
  maxAttempts?: number;
  /** First backoff after a transient failure; doubles each attempt. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest rate-limit wait honoured in-process; a later reset throws `VercelApiError` 429. Default 5 min. */
  maxWaitMs?: number;
}

export interface VercelResponse { status: number; data: unknown; headers: Record<string, string> }

/** A Vercel answer the connector cannot use (4xx other than a waited-out 429, or 5xx after retries). */
export class VercelApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(`Vercel ${status} ${code}: ${message}`);
    this.name = 'VercelApiError';
  }
}

export interface VercelClient {
  /** GET with retries; resolves with any final status (callers decide what a 404 means). */
  get(path: string, query: Record<string, string | number | undefined>, signal?: AbortSignal): Promise<VercelResponse>;
}

/** Consecutive rate-limit waits for one request before the 429 is handed back to the caller. */
const MAX_RATE_LIMIT_WAITS = 20;

const FORWARDED_HEADERS = /^(content-type|x-ratelimit-|x-vercel-id|retry-after)/i;

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(signal?.reason as Error); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** When a 429 may be retried (epoch ms): body `error.limit.resetMs`, else `x-ratelimit-reset` (epoch s), else `retry-after`. */
function resetAt(headers: Headers, body: unknown): number | undefined {
  const resetMs = (body as { error?: { limit?: { resetMs?: unknown } } } | null)?.error?.limit?.resetMs;
  if (typeof resetMs === 'number') return resetMs;
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (headers.get('x-ratelimit-reset') && Number.isFinite(reset)) return reset * 1000;
  const retryAfter = Number(headers.get('retry-after'));
  if (headers.get('retry-after') && Number.isFinite(retryAfter)) return Date.now() + retryAfter * 1000;
  return undefined;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('json')) return text;
  try { return JSON.parse(text) as unknown; } catch { return text; }
}

export interface VercelClientOptions {
  token: string;
  teamId?: string;
  baseUrl?: string;
  observer?: SyncObserver;
  retry?: VercelRetryPolicy;
}

/** REST client over `fetch`: bearer auth, `teamId` on every call, 429 waits and 5xx/network backoff. */
export function createVercelClient(options: VercelClientOptions): VercelClient {
  const baseUrl = (options.baseUrl ?? 'https://api.vercel.com').replace(/\/$/, '');
  const observer = options.observer ?? {};
  const maxAttempts = options.retry?.maxAttempts ?? 5;
  const baseDelayMs = options.retry?.baseDelayMs ?? 500;
  const maxWaitMs = options.retry?.maxWaitMs ?? 5 * 60_000;

  return {
    async get(path, query, signal) {
      const url = new URL(`${baseUrl}${path}`);
      for (const [k, v] of Object.entries({ ...query, teamId: options.teamId })) if (v !== undefined) url.searchParams.set(k, String(v));
      let attempt = 1;
      let rateLimitWaits = 0;
      for (;;) {
        signal?.throwIfAborted();
        let response: Response;
        try {
          response = await fetch(url, { headers: { authorization: `Bearer ${options.token}`, accept: 'application/json' }, signal });
        } catch (error) {
          if (signal?.aborted || !(error instanceof TypeError) || attempt >= maxAttempts) throw error;
          observer.onRetry?.({ attempt, reason: error.message });
          await sleep(baseDelayMs * 2 ** (attempt - 1), signal);
          attempt += 1;
          continue;
        }
        const data = await readBody(response);
        const headers: Record<string, string> = {};
        response.headers.forEach((value, key) => { if (FORWARDED_HEADERS.test(key)) headers[key] = value; });
        if (response.status === 429) {
          rateLimitWaits += 1;
          const at = resetAt(response.headers, data) ?? Date.now() + Math.min(baseDelayMs * 2 ** rateLimitWaits, maxWaitMs);
          const ms = Math.max(at - Date.now(), 0) + 25;
          if (ms > maxWaitMs || rateLimitWaits > MAX_RATE_LIMIT_WAITS) return { status: 429, data, headers };
          observer.onRateLimitWait?.({ ms, reason: `Vercel 429 on ${path}` });
          await sleep(ms, signal);
          continue;
        }
        if (response.status >= 500 && attempt < maxAttempts) {
          observer.onRetry?.({ attempt, status: response.status, reason: `Vercel ${response.status} on ${path}` });
          await sleep(baseDelayMs * 2 ** (attempt - 1), signal);
          attempt += 1;
          continue;
        }
        return { status: response.status, data, headers };
      }
    },
  };
}

/** The body of a successful answer, or a `VercelApiError` carrying Vercel's error code. */
export function expectOk(response: VercelResponse): unknown {
  if (response.status >= 200 && response.status < 300) return response.data;
  const error = (response.data as { error?: { code?: string; message?: string } } | null)?.error;
  throw new VercelApiError(response.status, error?.code ?? 'unknown', error?.message ?? String(response.data).slice(0, 200));
}
