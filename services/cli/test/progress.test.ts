/** What the progress bars show and where a token comes from: pure functions, no server. */
import { describe, expect, it } from 'vitest';
import { summarize, type StreamProgress } from '../src/commands/backfill.js';
import { providerToken } from '../src/commands/connect.js';
import { etaEstimator } from '../src/commands/import.js';

const stream = (over: Partial<StreamProgress>): StreamProgress =>
  ({ connectionId: 'con_1', stream: 's', mode: 'backfill', since: null, highWater: null, state: 'running', pages: 1, items: 0, totalHint: null, rateLimitWaits: 0, rateLimitWaitMs: 0, error: null, startedAt: null, completedAt: null, updatedAt: '', itemsPerSecond: 0, etaSeconds: null, ...over }) as StreamProgress;

describe('backfill total', () => {
  it('is unknown while a running stream has not reported its size, so it never grows from a partial sum', () => {
    expect(summarize([stream({ stream: 'pulls', items: 100, totalHint: 1000 }), stream({ stream: 'commits', items: 50 })]).total).toBeNull();
    expect(summarize([stream({ stream: 'pulls', items: 100, totalHint: 1000 }), stream({ stream: 'commits', items: 50, totalHint: 400 })]).total).toBe(1400);
    expect(summarize([stream({ stream: 'pulls', items: 980, state: 'done', totalHint: 1000 }), stream({ stream: 'commits', items: 50, totalHint: 400 })]).total).toBe(1380);
  });
});

describe('import ETA', () => {
  it('divides what is pending by the recent rate, and is unknown until indexing moves', () => {
    let now = 0;
    const eta = etaEstimator(60_000, () => now);
    expect(eta(0, 1000)).toBeNull();
    now = 10_000;
    expect(eta(100, 900)).toBe(90);
    now = 20_000;
    expect(eta(200, 0)).toBe(0);
  });
});

describe('provider tokens', () => {
  it('takes --token, else stdin, else ENGRAM_* before the provider variable; refuses both flags', async () => {
    const stdin = async () => 'from-stdin';
    expect(await providerToken('github', { token: 'flag' }, { GITHUB_TOKEN: 'env' }, stdin)).toBe('flag');
    expect(await providerToken('github', { tokenStdin: true }, { GITHUB_TOKEN: 'env' }, stdin)).toBe('from-stdin');
    expect(await providerToken('github', {}, { GITHUB_TOKEN: 'plain', ENGRAM_GITHUB_TOKEN: 'engram' }, stdin)).toBe('engram');
    expect(await providerToken('vercel', {}, { VERCEL_TOKEN: 'v' }, stdin)).toBe('v');
    await expect(providerToken('github', { token: 'a', tokenStdin: true }, {}, stdin)).rejects.toMatchObject({ code: 'USAGE' });
    await expect(providerToken('linear', {}, { GITHUB_TOKEN: 'x' }, stdin)).rejects.toThrow(/no linear token/);
  });
});
