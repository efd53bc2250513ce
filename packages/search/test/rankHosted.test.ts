import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai/index.js';
import { createHostedReranker, HostedRerankerError, type Candidate } from '../src/rank/index.js';

const apiKey = 'sk-rerank';
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const candidate = (id: string, title: string, content = ''): Candidate => ({
  id,
  title,
  snippet: content.slice(0, 300),
  content,
  type: 'pull_request',
  source: 'github',
  occurredAt: '2025-01-01T00:00:00.000Z',
  fused: 0.5,
  paths: { lexical: 0.5, vector: 0.5, entity: 0, cluster: 0, actor: 0 },
  signals: {},
});

const candidates = [
  candidate('a', 'Update dependency eslint to v9'),
  candidate('b', 'Fix blank lines between list items in Markdown', 'Blank lines inside markdown lists were removed.'),
  candidate('c', 'Markdown: keep blank lines'),
];
const query = 'blank lines removed in markdown lists';

async function fake(options: Partial<Parameters<typeof startFakeOpenAI>[0]> = {}): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI({ apiKey, ...options });
  servers.push(server);
  return server;
}

/** A TEI-like `/rerank`: `{query, texts}` in, `[{index, score}]` out (raw logits when asked), 422 on a Cohere body. */
async function teiServer(): Promise<{ url: string; bodies: Record<string, unknown>[] }> {
  const bodies: Record<string, unknown>[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string; texts?: string[]; raw_scores?: boolean };
      bodies.push(body);
      if (!Array.isArray(body.texts)) {
        res.writeHead(422, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: 'missing field `texts`', error_type: 'Validation' }));
      }
      const wanted = new Set(body.query.toLowerCase().split(/\W+/));
      // Logits: +4 per shared word, -4 baseline, as a cross-encoder's raw output would look.
      const scored = body.texts.map((t, index) => ({ index, score: -4 + 4 * t.toLowerCase().split(/\W+/).filter((w) => wanted.has(w)).length }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(scored.sort((x, y) => y.score - x.score)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

describe('hosted reranker', () => {
  it('sends the Cohere request shape and maps its answer back to candidate order', async () => {
    const server = await fake();
    const reranker = createHostedReranker({ url: server.url, apiKey, model: 'rerank-english-v3.0', protocol: 'cohere' });
    const scores = await reranker.rerank(query, candidates);
    expect(scores).toHaveLength(3);
    expect(scores[0]).toBe(0); // the unrelated bump
    expect(scores[1]!).toBeGreaterThan(scores[2]!);
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
    expect(server.state.rerankRequests).toBe(1);
  });

  it('speaks the TEI shape, detecting it from a rejected Cohere body, and squashes raw logits into [0, 1]', async () => {
    const tei = await teiServer();
    const reranker = createHostedReranker({ url: tei.url, model: 'bge-reranker-base' });
    const scores = await reranker.rerank(query, candidates);
    expect(tei.bodies[0]).toHaveProperty('documents');
    expect(tei.bodies[1]).toHaveProperty('texts');
    for (const s of scores) expect(s > 0 && s < 1).toBe(true);
    expect(scores[1]!).toBeGreaterThan(scores[2]!);
    expect(scores[2]!).toBeGreaterThan(scores[0]!);
    // Detection sticks: the next call goes straight to the TEI shape.
    await reranker.rerank(query, candidates);
    expect(tei.bodies).toHaveLength(3);
    expect(tei.bodies[2]).toHaveProperty('texts');
  });

  it('retries 429 and 5xx answers, then succeeds', async () => {
    const server = await fake({ rateLimitFirst: 1, failFirst: 1, retryAfterMs: 50 });
    const reranker = createHostedReranker({ url: server.url, apiKey, model: 'm', backoffMs: 10 });
    const scores = await reranker.rerank(query, candidates);
    expect(scores[1]!).toBeGreaterThan(0);
    expect(server.state.rateLimited).toBe(1);
    expect(server.state.failed).toBe(1);
    expect(server.state.rerankRequests).toBe(1);
  });

  it('fails with the status when retries run out, and at once on a rejected key', async () => {
    const server = await fake({ failFirst: 10 });
    await expect(createHostedReranker({ url: server.url, apiKey, model: 'm', retries: 1, backoffMs: 5 }).rerank(query, candidates)).rejects.toMatchObject({ status: 500 });
    expect(server.state.failed).toBe(2);
    const rejected = createHostedReranker({ url: server.url, apiKey: 'wrong', model: 'm', backoffMs: 5 }).rerank(query, candidates);
    await expect(rejected).rejects.toBeInstanceOf(HostedRerankerError);
    expect(server.state.unauthorized).toBe(1);
  });
});
