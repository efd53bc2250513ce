/** One JSON POST with a per-attempt timeout, the caller's abort signal, and retries for idempotent calls. */
import type { ErrorBody } from '@engram/contracts';
import { EngramError, retryAfterMs } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 disables). */
  maxRetries?: number;
  /** First backoff in ms; doubles each retry, with full jitter (default 500). */
  baseDelayMs?: number;
  /** Longest wait between attempts, Retry-After included (default 30 000). A longer Retry-After gives up. */
  maxDelayMs?: number;
}

export interface CallOptions {
  /** Aborts the call (and any wait between retries); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  workspaceId?: string;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  fetch: typeof fetch;
  /** Called before each retry (for logging); `delayMs` is the wait about to start. */
  onRetry?: (info: { attempt: number; delayMs: number; error: EngramError }) => void;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function createTransport(options: TransportOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');

  async function attempt<T>(path: string, body: unknown, call: CallOptions): Promise<{ value: T } | { error: EngramError; retryAfter: number | null }> {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` };
    if (options.workspaceId) headers['x-workspace-id'] = options.workspaceId;
    const timeout = AbortSignal.timeout(call.timeoutMs ?? options.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await options.fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body ?? {}), signal });
      text = await res.text();
    } catch (err) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (timeout.aborted) return { error: new EngramError(0, 'TIMEOUT', `no answer from ${base}${path} within ${call.timeoutMs ?? options.timeoutMs} ms`), retryAfter: null };
      return { error: new EngramError(0, 'NETWORK_ERROR', `cannot reach ${base}${path}: ${(err as Error).message}`), retryAfter: null };
    }
    const headerRequestId = res.headers.get('x-request-id') ?? undefined;
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      const error = new EngramError(res.status, res.ok ? 'INVALID_RESPONSE' : `HTTP_${res.status}`, `the server answered ${res.status} with a body that is not JSON`, null, headerRequestId);
      return { error, retryAfter: retryAfterMs(res.headers.get('retry-after')) };
    }
    if (res.ok) return { value: json as T };
    const e = (json ?? {}) as Partial<ErrorBody>;
    const error = new EngramError(res.status, e.code ?? `HTTP_${res.status}`, e.message ?? `HTTP ${res.status}`, e.data ?? null, e.requestId ?? headerRequestId);
    return { error, retryAfter: retryAfterMs(res.headers.get('retry-after')) };
  }

  /** POSTs `body` to `/v1${path}`; an idempotent call is retried on 429, 5xx, timeouts and network errors. */
  async function post<T>(path: string, body: unknown, call: CallOptions = {}, idempotent = true): Promise<T> {
    const { maxRetries, baseDelayMs, maxDelayMs } = options.retry;
    for (let n = 0; ; n++) {
      const out = await attempt<T>(`/v1${path}`, body, call);
      if ('value' in out) return out.value;
      const error = new EngramError(out.error.status, out.error.code, out.error.message, out.error.data, out.error.requestId, n + 1);
      if (!idempotent || !error.retryable || n >= maxRetries) throw error;
      const backoff = Math.random() * Math.min(baseDelayMs * 2 ** n, maxDelayMs);
      const delayMs = out.retryAfter ?? backoff;
      if (delayMs > maxDelayMs) throw error;
      options.onRetry?.({ attempt: n + 1, delayMs, error });
      await sleep(delayMs, call.signal);
    }
  }

  return { post };
}
