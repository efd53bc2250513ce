import type { LinearClient } from '@linear/sdk';
import { loadedLinearSdk } from './sdk.js';
import type { z } from 'zod';
import type { SyncObserver } from '../types.js';

export interface LinearRetryPolicy {
  /** Attempts for a transient failure (5xx, network) before giving up. Default 5. */
  maxAttempts?: number;
  /** First backoff after a transient failure; doubles each attempt. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest rate-limit wait honoured in-process; a later reset throws `LinearRateLimitedError`. Default 5 min. */
  maxWaitMs?: number;
}

/** Linear asked us to wait longer than the connector is willing to block: reschedule the sync at `resetAt`. */
export class LinearRateLimitedError extends Error {
  constructor(readonly resetAt: number) {
    super(`Linear rate limit: retry after ${new Date(resetAt).toISOString()}`);
    this.name = 'LinearRateLimitedError';
  }
}

export interface LinearResult<T> { data: T; headers: Record<string, string> }

export interface LinearTransport {
  request<T>(query: string, variables: Record<string, unknown>, schema: z.ZodType<T>, signal?: AbortSignal): Promise<LinearResult<T>>;
}

const FORWARDED_HEADERS = /^(content-type|x-ratelimit-|x-request-id|retry-after)/i;

/** Response headers safe to hand to a proxy caller: rate-limit state, never credentials. */
export const safeHeaders = (headers: Headers | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  headers?.forEach((value, key) => { if (FORWARDED_HEADERS.test(key)) out[key.toLowerCase()] = value; });
  return out;
};

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(signal?.reason as Error); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Consecutive rate-limit waits for one request before handing the decision back to the caller. */
const MAX_RATE_LIMIT_WAITS = 20;

type Failure = { kind: 'ratelimited'; resetAt: number | undefined } | { kind: 'transient'; status?: number; reason: string } | { kind: 'fatal' };

const num = (headers: Headers | undefined, name: string): number | undefined => {
  const v = headers?.get(name);
  return v == null || v === '' || Number.isNaN(Number(v)) ? undefined : Number(v);
};

/** When the limit that ran out resets (epoch ms), from Linear's `X-RateLimit-*-Reset` / `Retry-After` headers. */
const resetAtFrom = (headers: Headers | undefined): number | undefined => {
  const retryAfter = num(headers, 'retry-after');
  if (retryAfter !== undefined) return Date.now() + retryAfter * 1000;
  const requests = num(headers, 'x-ratelimit-requests-reset');
  const complexity = num(headers, 'x-ratelimit-complexity-reset');
  if (num(headers, 'x-ratelimit-complexity-remaining') === 0 && complexity) return complexity;
  return requests ?? complexity;
};

function classify(error: unknown): Failure {
  const sdk = loadedLinearSdk();
  if (sdk && error instanceof sdk.LinearError) {
    const { LinearErrorType } = sdk;
    const response = error.raw?.response;
    const codes = (response?.errors ?? []).map((e) => (e.extensions as { code?: string } | undefined)?.code);
    if (error.status === 429 || error.type === LinearErrorType.Ratelimited || codes.includes('RATELIMITED')) {
      return { kind: 'ratelimited', resetAt: resetAtFrom(response?.headers) };
    }
    const status = error.status;
    if ((status !== undefined && status >= 500) || (status === undefined && error.type === LinearErrorType.NetworkError)) {
      return { kind: 'transient', status, reason: error.message.slice(0, 200) };
    }
    if (error.type === LinearErrorType.LockTimeout || error.type === LinearErrorType.InternalError) {
      return { kind: 'transient', status, reason: error.message.slice(0, 200) };
    }
    return { kind: 'fatal' };
  }
  // fetch() rejects with a TypeError when the connection fails or is reset.
  if (error instanceof TypeError) return { kind: 'transient', reason: error.message };
  return { kind: 'fatal' };
}

/**
 * Sends GraphQL through the Linear SDK client (`client`: made when the first request is sent), waiting out
 * rate limits and retrying transient failures.
 */
export function createLinearTransport(client: () => Promise<LinearClient>, observer: SyncObserver = {}, policy: LinearRetryPolicy = {}): LinearTransport {
  const maxAttempts = policy.maxAttempts ?? 5;
  const baseDelayMs = policy.baseDelayMs ?? 500;
  const maxWaitMs = policy.maxWaitMs ?? 5 * 60_000;
  return {
    async request(query, variables, schema, signal) {
      let attempt = 1;
      let rateLimitWaits = 0;
      for (;;) {
        signal?.throwIfAborted();
        try {
          const response = await (await client()).client.rawRequest<unknown, Record<string, unknown>>(query, variables);
          return { data: schema.parse(response.data), headers: safeHeaders(response.headers) };
        } catch (error) {
          const failure = classify(error);
          if (failure.kind === 'ratelimited') {
            rateLimitWaits += 1;
            const fallback = Date.now() + Math.min(baseDelayMs * 2 ** rateLimitWaits, maxWaitMs);
            const resetAt = failure.resetAt ?? fallback;
            const ms = Math.max(resetAt - Date.now(), 0) + 25;
            if (ms > maxWaitMs || rateLimitWaits > MAX_RATE_LIMIT_WAITS) throw new LinearRateLimitedError(resetAt);
            observer.onRateLimitWait?.({ ms, reason: 'Linear RATELIMITED' });
            await sleep(ms, signal);
            continue;
          }
          if (failure.kind === 'transient' && attempt < maxAttempts) {
            const ms = baseDelayMs * 2 ** (attempt - 1);
            observer.onRetry?.({ attempt, status: failure.status, reason: failure.reason });
            attempt += 1;
            await sleep(ms, signal);
            continue;
          }
          throw error;
        }
      }
    },
  };
}
