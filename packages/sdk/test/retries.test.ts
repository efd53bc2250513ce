/**
 * Retries, timeouts and aborts against a small real HTTP server that answers what an overloaded Engram
 * (or a proxy in front of it) answers: 429 with Retry-After, 503, a slow answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngramClient, EngramError } from '../src/index.js';

type Reply = (req: IncomingMessage, res: ServerResponse, n: number) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** Answers request n (from 1) with `replies[n-1]`, the last one repeating; records when each arrived. */
async function scripted(replies: Reply[]): Promise<{ url: string; arrivals: number[]; paths: string[] }> {
  const arrivals: number[] = [];
  const paths: string[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(Date.now());
      paths.push(req.url ?? '');
      replies[Math.min(arrivals.length, replies.length) - 1]!(req, res, arrivals.length);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, arrivals, paths };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_test_0001', ...headers });
  res.end(JSON.stringify(body));
};
const error = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: code, code, message: `${code} (test)`, status, defined: true, data: null, requestId: 'req_test_0001' }, headers);
const page = (ids: string[], total: number): Reply =>
  json(200, { data: ids.map((id) => ({ id, title: id, url: `https://x/${id}`, snippet: '', score: 0.5, source: 'github', type: 'issue' })), meta: { total, limit: 2, offset: 0, took: 1, mode: 'fast', paths: {} }, latency: { total: 1, retrieval: 1, rerank: 0 }, requestId: 'req_test_0001' });

const client = (url: string, extra: Partial<Parameters<typeof createEngramClient>[0]> = {}) =>
  createEngramClient({ baseUrl: url, apiKey: 'egk_test', workspaceId: 'ws_test', retry: { baseDelayMs: 10, maxDelayMs: 5_000 }, ...extra });

describe('retries', () => {
  it('waits as long as Retry-After says on a 429, then succeeds', async () => {
    const s = await scripted([error(429, 'RATE_LIMITED', { 'retry-after': '1' }), page(['obs_a'], 1)]);
    const out = await client(s.url).search({ query: 'q' });
    expect(out.data.map((r) => r.id)).toEqual(['obs_a']);
    expect(s.arrivals).toHaveLength(2);
    expect(s.arrivals[1]! - s.arrivals[0]!).toBeGreaterThanOrEqual(950);
  });

  it('retries 503s with backoff and gives up after maxRetries with the last error', async () => {
    const s = await scripted([error(503, 'UNAVAILABLE')]);
    const err = (await client(s.url, { retry: { maxRetries: 2, baseDelayMs: 10 } }).contents(['obs_a']).catch((e: unknown) => e)) as EngramError;
    expect(err).toBeInstanceOf(EngramError);
    expect(err).toMatchObject({ status: 503, code: 'UNAVAILABLE', requestId: 'req_test_0001', attempts: 3 });
    expect(s.arrivals).toHaveLength(3);
  });

  it('gives up at once when Retry-After is longer than maxDelayMs', async () => {
    const s = await scripted([error(429, 'RATE_LIMITED', { 'retry-after': '120' })]);
    await expect(client(s.url).search({ query: 'q' })).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED', attempts: 1 });
    expect(s.arrivals).toHaveLength(1);
  });

  it('never retries a 4xx other than 429, nor proxyCall (it may change the provider)', async () => {
    const s = await scripted([error(400, 'VALIDATION_ERROR'), error(503, 'UNAVAILABLE')]);
    await expect(client(s.url).search({ query: 'q' })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    await expect(client(s.url).proxyCall('github.get-issue', { owner: 'o', repo: 'r', issue_number: 1 })).rejects.toMatchObject({ status: 503 });
    expect(s.arrivals).toHaveLength(2);
  });
});

describe('timeouts and aborts', () => {
  const slow: Reply = (_req, res) => {
    const timer = setTimeout(() => json(200, { items: [], missing: [], requestId: 'r' })(_req, res, 0), 2_000);
    res.on('close', () => clearTimeout(timer));
  };

  it('times an attempt out as TIMEOUT, retrying it first', async () => {
    const s = await scripted([slow]);
    const err = await client(s.url, { timeoutMs: 100, retry: { maxRetries: 1, baseDelayMs: 10 } }).contents(['obs_a']).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 0, code: 'TIMEOUT', attempts: 2 });
    expect(s.arrivals).toHaveLength(2);
  });

  it("rejects with the caller's abort reason and stops retrying", async () => {
    const s = await scripted([error(503, 'UNAVAILABLE', { 'retry-after': '3' })]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user cancelled')), 200);
    await expect(client(s.url).search({ query: 'q' }, { signal: controller.signal })).rejects.toThrow('user cancelled');
    expect(s.arrivals).toHaveLength(1);
  });

  it('reports an unreachable server as NETWORK_ERROR', async () => {
    const s = await scripted([error(500, 'INTERNAL_ERROR')]);
    const url = s.url;
    server!.close();
    server = undefined;
    await expect(client(url, { retry: { maxRetries: 0 } }).search({ query: 'q' })).rejects.toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
  });
});

describe('searchPages', () => {
  it('walks pages by offset until total, one request each', async () => {
    const s = await scripted([page(['obs_1', 'obs_2'], 5), page(['obs_3', 'obs_4'], 5), page(['obs_5'], 5)]);
    const seen: string[] = [];
    for await (const p of client(s.url).searchPages({ query: 'q', limit: 2 })) seen.push(...p.data.map((r) => r.id));
    expect(seen).toEqual(['obs_1', 'obs_2', 'obs_3', 'obs_4', 'obs_5']);
    expect(s.paths).toEqual(['/v1/search', '/v1/search', '/v1/search']);
  });
});
