// Retries for calls to hosted providers: 429 and 5xx (and dropped connections) are transient;
// every other error is final. Waits follow `retry-after-ms` / `retry-after` when the server sends
// them, otherwise exponential backoff with jitter.
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { abortError } from './vectors.js';

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff step; doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound for any single wait, including one asked for by `retry-after`. */
  maxDelayMs: number;
  random?: () => number;
}

export function isTransient(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || error.status === undefined) return false;
  return error.status === 429 || error.status >= 500;
}

/** Milliseconds the server asked us to wait, or undefined when it did not say. */
export function serverRetryDelayMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const millis = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(millis) && millis >= 0) return millis;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function retryDelayMs(error: unknown, attempt: number, policy: RetryPolicy): number {
  const asked = error instanceof APIError ? serverRetryDelayMs(error.headers) : undefined;
  if (asked !== undefined) return Math.min(asked, policy.maxDelayMs);
  const exponential = Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
  const random = policy.random ?? Math.random;
  return exponential * (0.5 + random() / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      if (signal) reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export async function withRetry<T>(call: () => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      if (attempt >= policy.maxRetries || !isTransient(error)) throw error;
      await sleep(retryDelayMs(error, attempt, policy), signal);
    }
  }
}
