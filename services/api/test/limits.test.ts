/**
 * The rate limiter on Redis: two api processes (two limiter instances) share one key's budget, and a key
 * over it is refused with a retry time. Skipped without REDIS_URL (the in-memory variant is covered over
 * HTTP in hardening.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRequestLimits, RateLimitedError } from '../src/http/limits.js';

const REDIS_URL = process.env.REDIS_URL;

describe.skipIf(!REDIS_URL)('rate limits on Redis (REDIS_URL)', () => {
  it('two processes share a key budget; over it is RATE_LIMITED with Retry-After seconds; other keys are free', async () => {
    const settings = { keyPerSecond: 6, keyConcurrency: 0, ipPerSecond: 4 };
    const a = createRequestLimits(settings, { redisUrl: REDIS_URL });
    const b = createRequestLimits(settings, { redisUrl: REDIS_URL });
    try {
      await Promise.all([a.ready(), b.ready()]);
      const key = `key_${randomUUID()}`;
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).admitKey(key).then(() => 'ok', (e: unknown) => e)),
      );
      const refused = outcomes.filter((o): o is RateLimitedError => o instanceof RateLimitedError);
      expect(outcomes.filter((o) => o === 'ok').length).toBeLessThanOrEqual(6);
      expect(refused.length).toBeGreaterThanOrEqual(4);
      expect(refused[0]!.status).toBe(429);
      expect(refused[0]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      await expect(a.admitKey(`key_${randomUUID()}`)).resolves.toBeTypeOf('function');
      const ip = `10.0.0.${Math.floor(Math.random() * 250)}-${randomUUID()}`;
      const ips = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).admitIp(ip).then(() => 'ok', (e: unknown) => e)));
      expect(ips.filter((o) => o instanceof RateLimitedError).length).toBeGreaterThanOrEqual(4);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('the per-key concurrency cap', () => {
  it('the n+1-th request in flight is refused until one finishes', async () => {
    const limits = createRequestLimits({ keyPerSecond: 0, keyConcurrency: 2, ipPerSecond: 0 });
    const key = `key_${randomUUID()}`;
    const r1 = await limits.admitKey(key);
    await limits.admitKey(key);
    await expect(limits.admitKey(key)).rejects.toBeInstanceOf(RateLimitedError);
    r1();
    await expect(limits.admitKey(key)).resolves.toBeTypeOf('function');
    await limits.close();
  });
});
