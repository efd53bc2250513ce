import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from './index.js';

const apiKey = 'sk-fake';
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('fake OpenAI-compatible server', () => {
  it('scores numbered candidates against the query in the documented JSON shape', async () => {
    fake = await startFakeOpenAI({ apiKey });
    const client = new OpenAI({ apiKey, baseURL: fake.url, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: 'Rate how relevant each candidate is to the query. Answer JSON {"scores":[{"index":i,"score":0..1}]}.' },
        {
          role: 'user',
          content: [
            'Query: blank lines removed in markdown lists',
            'Candidates:',
            '[0] Fix blank lines between list items in Markdown',
            '[1] Update dependency eslint to v9',
            '[2] Markdown: keep blank lines',
          ].join('\n'),
        },
      ],
    });
    const scores = JSON.parse(completion.choices[0]!.message.content!) as { scores: { index: number; score: number }[] };
    expect(scores.scores.map((s) => s.index)).toEqual([0, 1, 2]);
    const [fix, unrelated, keep] = scores.scores.map((s) => s.score);
    expect(unrelated).toBe(0);
    expect(fix).toBeGreaterThan(keep!);
    expect(keep).toBeGreaterThan(0);
    for (const { score } of scores.scores) expect(score).toBeLessThanOrEqual(1);
    expect(fake.state.chatRequests).toBe(1);
  });

  it('answers the SDK default base64 embeddings with the same vectors as float ones', async () => {
    fake = await startFakeOpenAI({ apiKey });
    const client = new OpenAI({ apiKey, baseURL: fake.url, maxRetries: 0 });
    const input = ['Fix blank lines in Markdown lists', 'Update eslint'];
    const base64 = await client.embeddings.create({ model: 'text-embedding-3-small', input, dimensions: 32 });
    const float = await client.embeddings.create({ model: 'text-embedding-3-small', input, dimensions: 32, encoding_format: 'float' });
    expect(base64.data.map((d) => d.embedding.length)).toEqual([32, 32]);
    base64.data.forEach((d, i) => {
      d.embedding.forEach((x, j) => expect(x).toBeCloseTo(float.data[i]!.embedding[j]!, 6));
    });
  });

  it('refuses a chat prompt that does not follow the contract', async () => {
    fake = await startFakeOpenAI({ apiKey });
    const client = new OpenAI({ apiKey, baseURL: fake.url, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('reranks documents Cohere-style, best first, cut to top_n', async () => {
    fake = await startFakeOpenAI({ apiKey });
    const response = await fetch(`${fake.url}/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'rerank-v3.5',
        query: 'support the satisfies operator',
        documents: ['Update eslint', 'Support TS4.9 `satisfies` operator', 'Support Angular v21.2'],
        top_n: 2,
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { index: number; relevance_score: number }[] };
    expect(body.results.map((r) => r.index)).toEqual([1, 2]);
    expect(body.results[0]!.relevance_score).toBeGreaterThan(body.results[1]!.relevance_score);
  });

  it('counts refused requests: bad key, then 429s, then 500s', async () => {
    fake = await startFakeOpenAI({ apiKey, rateLimitFirst: 1, failFirst: 1, retryAfterMs: 1500 });
    const post = (key: string) =>
      fetch(`${fake!.url}/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', input: 'hello', dimensions: 8 }),
      });
    expect((await post('wrong')).status).toBe(401);
    const limited = await post(apiKey);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.headers.get('retry-after-ms')).toBe('1500');
    expect((await post(apiKey)).status).toBe(500);
    const ok = await post(apiKey);
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { data: { embedding: number[] }[] };
    expect(body.data[0]!.embedding).toHaveLength(8);
    expect(fake.state).toMatchObject({ requests: 4, unauthorized: 1, rateLimited: 1, failed: 1, embeddingRequests: 1 });
  });
});
