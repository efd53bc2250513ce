/**
 * Abuse limits: requests per second per API key, requests in flight per key, and requests per second per
 * client IP for what carries no valid credential (webhooks, missing or wrong keys and admin tokens).
 * Counters live in Redis when REDIS_URL is configured (shared by every api process, with an in-memory
 * fallback while Redis is unreachable) and in memory otherwise. Over a limit: 429 RATE_LIMITED with
 * `Retry-After` (seconds) and the documented error body.
 */
import type { RequestHandler } from 'express';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError } from './errors.js';

export interface LimitSettings {
  /** 0: off. */
  keyPerSecond: number;
  keyConcurrency: number;
  ipPerSecond: number;
}

export class RateLimitedError extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    limit: string,
  ) {
    super(429, 'RATE_LIMITED', message, { limit, retryAfterSeconds });
  }
}

export interface RequestLimits {
  /** Throws RateLimitedError when the key is over its rate or concurrency; returns a release for the latter. */
  admitKey(keyId: string): Promise<() => void>;
  /** Throws RateLimitedError when the IP is over its unauthenticated rate. */
  admitIp(ip: string): Promise<void>;
  /** Resolves once the shared store is connected (at once in memory); until then each process counts alone. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

function limiter(points: number, prefix: string, redis: Redis | null): RateLimiterAbstract | null {
  if (points <= 0) return null;
  const memory = new RateLimiterMemory({ points, duration: 1, keyPrefix: prefix });
  if (!redis) return memory;
  return new RateLimiterRedis({ storeClient: redis, points, duration: 1, keyPrefix: `engram:rl:${prefix}`, insuranceLimiter: memory });
}

async function consume(l: RateLimiterAbstract | null, key: string, what: string): Promise<void> {
  if (!l) return;
  try {
    await l.consume(key);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new RateLimitedError(`rate limit exceeded: ${what}; retry after ${seconds} s`, seconds, what);
    }
    throw rejection;
  }
}

export function createRequestLimits(settings: LimitSettings, options: { redisUrl?: string | undefined } = {}): RequestLimits {
  const redis = options.redisUrl && (settings.keyPerSecond > 0 || settings.ipPerSecond > 0)
    ? new Redis(options.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
    : null;
  redis?.on('error', () => undefined); // the in-memory insurance limiter answers while Redis is down
  const perKey = limiter(settings.keyPerSecond, 'key', redis);
  const perIp = limiter(settings.ipPerSecond, 'ip', redis);
  const inFlight = new Map<string, number>();
  return {
    async admitKey(keyId) {
      await consume(perKey, keyId, `${settings.keyPerSecond} requests per second per API key`);
      if (settings.keyConcurrency <= 0) return () => undefined;
      const n = inFlight.get(keyId) ?? 0;
      if (n >= settings.keyConcurrency) throw new RateLimitedError(`too many concurrent requests: at most ${settings.keyConcurrency} in flight per API key`, 1, 'concurrency');
      inFlight.set(keyId, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(keyId) ?? 1) - 1;
        if (left <= 0) inFlight.delete(keyId);
        else inFlight.set(keyId, left);
      };
    },
    async admitIp(ip) {
      await consume(perIp, ip, `${settings.ipPerSecond} unauthenticated requests per second per client`);
    },
    async ready() {
      if (!redis || redis.status === 'ready') return;
      await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    },
    async close() {
      redis?.disconnect();
    },
  };
}

/** Middleware form of the per-IP limit (webhooks: no credential to count against). */
export function limitByIp(limits: RequestLimits): RequestHandler {
  return (req, _res, next) => {
    limits.admitIp(req.ip ?? 'unknown').then(() => next(), next);
  };
}

/** The limits the app was built with (`app.locals`), for middleware mounted deep in routers. */
export const limitsOf = (locals: Record<string, unknown>): RequestLimits | undefined => locals.limits as RequestLimits | undefined;
