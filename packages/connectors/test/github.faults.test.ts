import { describe, expect, it } from 'vitest';
import type { FakeGitHubOptions } from '../../../test/fakes/github/index.js';
import { hasPrettierCorpus, prettierSubset, startFakeGitHub, walkStream } from '../../../test/fakes/github/index.js';
import type { SyncObserver } from '../src/types.js';
import { createGitHubConnector } from '../src/github/connector.js';

const REPO = 'prettier/prettier';
const TOKEN = 'ghp_faults_test';

interface Seen { waits: { ms: number; reason: string }[]; retries: { attempt: number; status?: number; reason: string }[] }

/** Starts a fake with `faults`, walks `streamName` to the end, and reports what the observer saw. */
async function walkWith(faults: Partial<FakeGitHubOptions>, streamName: string, extra: { retries?: number; requestTimeoutMs?: number } = {}) {
  const { pulls, commits } = prettierSubset({ pulls: 20, commits: 40 });
  const gh = await startFakeGitHub({ repo: REPO, token: TOKEN, items: [...pulls, ...commits], ...faults });
  const seen: Seen = { waits: [], retries: [] };
  const observer: SyncObserver = { onRateLimitWait: (w) => seen.waits.push(w), onRetry: (r) => seen.retries.push(r) };
  const connector = createGitHubConnector({ repo: REPO, token: TOKEN, baseUrl: gh.url, perPage: 10, observer, retryBaseMs: 5, concurrency: 4, ...extra });
  const stream = connector.streams().find((s) => s.name === streamName)!;
  try {
    const walk = await walkStream(stream);
    return { walk, seen, state: gh.state, expected: streamName === 'commits' ? commits.length : pulls.length };
  } finally {
    await gh.close();
  }
}

describe.skipIf(!hasPrettierCorpus())('GitHub connector under rate limits and failures (needs shared/data/github-prettier)', () => {
  it.concurrent.each([403, 429] as const)('waits out a spent primary rate limit answered %i, losing nothing', async (status) => {
    // 44 requests through a budget of 30 that refills 1 s after it is spent: the walk must wait.
    const { walk, seen, state, expected } = await walkWith({ rateLimit: { limit: 30, resetMs: 1000, status } }, 'commits');
    expect(state.rateLimited).toBeGreaterThan(0);
    expect(seen.waits.length).toBeGreaterThan(0);
    expect(seen.waits.every((w) => w.ms >= 1000 && /primary/.test(w.reason))).toBe(true);
    expect(new Set(walk.events.map((e) => e.externalId)).size).toBe(expected);
    expect(walk.events).toHaveLength(expected);
  });

  it.concurrent.each([403, 429] as const)('waits the retry-after of a secondary rate limit answered %i', async (status) => {
    const { walk, seen, state, expected } = await walkWith({ secondaryLimit: { every: 25, retryAfterSeconds: 1, status } }, 'pull_requests');
    expect(state.secondaryLimited).toBeGreaterThan(0);
    expect(seen.waits.filter((w) => /secondary/.test(w.reason)).map((w) => w.ms)).toContain(1000);
    expect(new Set(walk.events.map((e) => e.externalId)).size).toBe(expected);
    expect(walk.events.every((e) => e.files.length > 0)).toBe(true);
  });

  it.concurrent.each([502, 503] as const)('retries bursts of %i and reports every retry', async (status) => {
    const { walk, seen, state, expected } = await walkWith({ failBursts: { every: 10, length: 2, status } }, 'commits');
    expect(state.failed).toBeGreaterThan(0);
    expect(seen.retries).toHaveLength(state.failed);
    expect(seen.retries.every((r) => r.status === status)).toBe(true);
    expect(seen.retries.map((r) => r.attempt)).toContain(2);
    expect(new Set(walk.events.map((e) => e.externalId)).size).toBe(expected);
  });

  it('gives up on an attempt the provider never answers after its deadline, retries it, and loses nothing', async () => {
    const { walk, seen, state, expected } = await walkWith({ hangs: { every: 9 } }, 'commits', { requestTimeoutMs: 300 });
    expect(state.hung).toBeGreaterThan(0);
    expect(seen.retries.length).toBeGreaterThanOrEqual(state.hung);
    expect(seen.retries.some((r) => /timeout/i.test(r.reason))).toBe(true);
    expect(new Set(walk.events.map((e) => e.externalId)).size).toBe(expected);
    expect(walk.events).toHaveLength(expected);
  });

  it('retries a 200 whose JSON body was cut short instead of reading it as data', async () => {
    const { walk, seen, state, expected } = await walkWith({ truncate: { every: 7 } }, 'pull_requests', { retries: 6 });
    expect(state.truncated).toBeGreaterThan(0);
    expect(seen.retries.filter((r) => /cut short/.test(r.reason))).toHaveLength(state.truncated);
    expect(new Set(walk.events.map((e) => e.externalId)).size).toBe(expected);
    expect(walk.events).toHaveLength(expected);
    expect(walk.events.every((e) => e.files.length > 0)).toBe(true);
  });

  it('fails a page whose outage outlasts the retries, and the same cursor succeeds afterwards', async () => {
    const { commits } = prettierSubset({ pulls: 0, commits: 30 });
    const gh = await startFakeGitHub({ repo: REPO, token: TOKEN, items: commits, failBursts: { every: 12, length: 2, status: 503, count: 1 } });
    try {
      const connector = createGitHubConnector({ repo: REPO, token: TOKEN, baseUrl: gh.url, perPage: 10, retries: 1, retryBaseMs: 5, concurrency: 1 });
      const stream = connector.streams().find((s) => s.name === 'commits')!;
      const first = await stream.fetchPage(null);
      await expect(stream.fetchPage(first.next)).rejects.toMatchObject({ status: 503 });
      const retried = await stream.fetchPage(first.next);
      const rest = await walkStream(stream, { from: retried.next });
      const all = [...first.events, ...retried.events, ...rest.events].map((e) => e.externalId);
      expect(new Set(all).size).toBe(30);
      expect(all).toHaveLength(30);
    } finally {
      await gh.close();
    }
  });

  it('revalidates a re-fetched page with ETags: 304s, same objects', async () => {
    const { pulls, commits } = prettierSubset({ pulls: 10, commits: 10 });
    const gh = await startFakeGitHub({ repo: REPO, token: TOKEN, items: [...pulls, ...commits] });
    try {
      const connector = createGitHubConnector({ repo: REPO, token: TOKEN, baseUrl: gh.url, perPage: 10 });
      const stream = connector.streams().find((s) => s.name === 'pull_requests')!;
      const first = await stream.fetchPage(null);
      expect(gh.state.notModified).toBe(0);
      const again = await stream.fetchPage(null);
      // The list page and the files, commits and reviews of its 10 pull requests.
      expect(gh.state.notModified).toBe(1 + 3 * 10);
      expect(again.events).toEqual(first.events);
    } finally {
      await gh.close();
    }
  });

  it('rejects a bad token without waiting or retrying', async () => {
    const gh = await startFakeGitHub({ repo: REPO, token: TOKEN, items: [] });
    try {
      const seen: Seen = { waits: [], retries: [] };
      const connector = createGitHubConnector({
        repo: REPO, token: 'ghp_wrong', baseUrl: gh.url,
        observer: { onRateLimitWait: (w) => seen.waits.push(w), onRetry: (r) => seen.retries.push(r) },
      });
      await expect(connector.streams()[0]!.fetchPage(null)).rejects.toMatchObject({ status: 401 });
      expect(gh.state.unauthorized).toBe(1);
      expect(seen).toEqual({ waits: [], retries: [] });
    } finally {
      await gh.close();
    }
  });
});
