import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { isTransient, retryDelayMs, serverRetryDelayMs, type RetryPolicy } from '../src/embeddings/retry.js';

const policy: RetryPolicy = { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30_000, random: () => 1 };
const apiError = (status: number, headers: Record<string, string> = {}) =>
  APIError.generate(status, { message: 'x' }, undefined, new Headers(headers));

describe('retry policy', () => {
  it('retries rate limits, server errors and dropped connections only', () => {
    expect(isTransient(apiError(429))).toBe(true);
    expect(isTransient(apiError(503))).toBe(true);
    expect(isTransient(new APIConnectionError({ message: 'socket hang up' }))).toBe(true);
    expect(isTransient(apiError(400))).toBe(false);
    expect(isTransient(apiError(401))).toBe(false);
    expect(isTransient(new APIUserAbortError())).toBe(false);
    expect(isTransient(new Error('bug'))).toBe(false);
  });

  it('waits as long as the server asks, in ms, seconds or as a date, up to the cap', () => {
    expect(serverRetryDelayMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(serverRetryDelayMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(serverRetryDelayMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7000);
    expect(serverRetryDelayMs(new Headers({}))).toBeUndefined();
    expect(retryDelayMs(apiError(429, { 'retry-after': '2' }), 0, policy)).toBe(2000);
    expect(retryDelayMs(apiError(429, { 'retry-after': '600' }), 0, policy)).toBe(30_000);
  });

  it('backs off exponentially with jitter between half and the full step', () => {
    expect(retryDelayMs(apiError(500), 0, policy)).toBe(500);
    expect(retryDelayMs(apiError(500), 3, policy)).toBe(4000);
    expect(retryDelayMs(apiError(500), 3, { ...policy, random: () => 0 })).toBe(2000);
    expect(retryDelayMs(apiError(500), 20, policy)).toBe(30_000);
  });
});
