import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRelevancePrompt, startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai/index.js';
import { createLlmScorer, LlmUnavailableError, relevancePrompt, type Candidate } from '../src/rank/index.js';

const apiKey = 'sk-llm';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function fake(options: Partial<Parameters<typeof startFakeOpenAI>[0]> = {}): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI({ apiKey, ...options });
  closers.push(() => server.close());
  return server;
}

/**
 * In front of the fake: holds every chat request whose prompt mentions `slowWord` for `delayMs` before
 * forwarding it, as an overloaded provider would; the others pass straight through.
 */
async function slowProxy(target: string, slowWord: string, delayMs: number): Promise<string> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const forward = async (): Promise<void> => {
        if (body.includes(slowWord)) await new Promise((resolve) => setTimeout(resolve, delayMs));
        const answer = await fetch(`${target}${req.url!.replace(/^\/v1/, '')}`, { method: 'POST', headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' }, body });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(await answer.text());
      };
      forward().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const candidate = (id: string, title: string, fused: number): Candidate => ({
  id,
  title,
  snippet: '',
  content: '',
  type: 'pull_request',
  source: 'github',
  occurredAt: '2025-01-01T00:00:00.000Z',
  fused,
  paths: { lexical: fused, vector: fused, entity: 0, cluster: 0, actor: 0 },
  signals: {},
});

const query = 'blank lines removed in markdown lists';
const candidates = [
  candidate('a', 'Update dependency eslint to v9', 0.8),
  candidate('b', 'Fix blank lines removed in markdown lists', 0.4),
  candidate('c', 'Markdown: keep blank lines', 0.7),
  candidate('d', 'Release 3.1', 0.2),
];

describe('LLM scorer', () => {
  it('follows the prompt contract of the fake: one Query line and one [i] line per candidate', () => {
    const prompt = parseRelevancePrompt(relevancePrompt(query, [candidate('x', 'Title\nwith a newline', 0.5)], 500));
    expect(prompt?.query).toBe(query);
    expect(prompt?.candidates).toHaveLength(1);
    expect(prompt?.candidates[0]?.text).toContain('Title with a newline');
  });

  it('blends the judgement with the stage-1 score, judging in parallel batches', async () => {
    const server = await fake();
    const scorer = createLlmScorer({ baseURL: server.url, apiKey, model: 'gpt-4o-mini', timeoutMs: 5000, batchSize: 2, weight: 0.5 });
    const scores = await scorer.rerank(query, candidates);
    expect(server.state.chatRequests).toBe(2);
    // The fake judges by word overlap: b covers the query fully (1.0), a not at all (0).
    expect(scores[1]).toBeCloseTo(0.5 * 1 + 0.5 * 0.4, 5);
    expect(scores[0]).toBeCloseTo(0.5 * 0 + 0.5 * 0.8, 5);
    expect(scores[1]!).toBeGreaterThan(scores[0]!);
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
  });

  it('keeps the stage-1 score of a batch that misses the deadline, and uses the batches that made it', async () => {
    const server = await fake();
    const baseURL = await slowProxy(server.url, 'eslint', 3000);
    const scorer = createLlmScorer({ baseURL, apiKey, model: 'gpt-4o-mini', timeoutMs: 500, batchSize: 2, weight: 0.5 });
    const scores = await scorer.rerank(query, candidates);
    expect(scores.slice(0, 2)).toEqual([0.8, 0.4]); // the slow batch (a, b): stage-1 scores as they came
    expect(scores[2]).toBeCloseTo(0.5 * 0.6 + 0.5 * 0.7, 5); // the fast batch (c, d) was judged: c covers 3 of 5 query words
  });

  it('throws LlmUnavailableError when every batch fails, so the service can answer as balanced', async () => {
    const server = await fake({ failFirst: 100 });
    const scorer = createLlmScorer({ baseURL: server.url, apiKey, model: 'gpt-4o-mini', timeoutMs: 2000, batchSize: 2 });
    await expect(scorer.rerank(query, candidates)).rejects.toBeInstanceOf(LlmUnavailableError);
    expect(server.state.failed).toBe(2);

    const slow = await slowProxy(server.url, 'Query', 3000);
    const late = createLlmScorer({ baseURL: slow, apiKey, model: 'gpt-4o-mini', timeoutMs: 300 });
    await expect(late.rerank(query, candidates)).rejects.toBeInstanceOf(LlmUnavailableError);
  });
});
