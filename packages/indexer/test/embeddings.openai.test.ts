import { afterEach, describe, expect, it } from 'vitest';
import { bagOfWordsVector, startFakeOpenAI, type FakeOpenAI } from '../../../test/fakes/openai/index.js';
import { createOpenAIEmbedder } from '../src/embeddings/openai.js';
import { cosineSimilarity } from '../src/embeddings/vectors.js';

const apiKey = 'sk-test-embeddings';
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const titles = [
  'Fix leading comments in mapped types',
  'Update dependency eslint to v9',
  'Support TypeScript 5 satisfies operator',
  'Add `oxc` parser',
  'Fix comments in mapped types with readonly',
  'Remove plugins from standalone build',
  'Bump typescript-eslint',
];

describe('OpenAI-compatible embedder', () => {
  it('sends batches of batchSize and returns unit vectors in input order', async () => {
    fake = await startFakeOpenAI({ apiKey });
    const embedder = createOpenAIEmbedder({ apiKey, baseURL: fake.url, model: 'text-embedding-3-small', batchSize: 3 });
    const vectors = await embedder.embed(titles);
    expect(fake.state.embeddingBatchSizes).toEqual([3, 3, 1]);
    expect(vectors).toHaveLength(titles.length);
    titles.forEach((title, i) => {
      expect(Math.hypot(...vectors[i]!)).toBeCloseTo(1, 6);
      expect(cosineSimilarity(vectors[i]!, bagOfWordsVector(title, 1536))).toBeCloseTo(1, 6);
    });
    expect(cosineSimilarity(vectors[0]!, vectors[4]!)).toBeGreaterThan(cosineSimilarity(vectors[0]!, vectors[1]!));
    expect(embedder.model).toBe('openai:text-embedding-3-small');
  });

  it('asks for the configured dimensions and reports the length the server returned', async () => {
    fake = await startFakeOpenAI({ apiKey, defaultDimensions: 768 });
    const shortened = createOpenAIEmbedder({ apiKey, baseURL: fake.url, model: 'text-embedding-3-large', dimensions: 256 });
    expect(shortened.dimensions).toBe(256);
    const [vector] = await shortened.embed(['Add `oxc` parser']);
    expect(vector).toHaveLength(256);
    expect(shortened.model).toBe('openai:text-embedding-3-large:256');

    const native = createOpenAIEmbedder({ apiKey, baseURL: fake.url, model: 'nomic-embed-text' });
    expect(native.dimensions).toBe(0);
    await native.embed(['Add `oxc` parser']);
    expect(native.dimensions).toBe(768);
  });

  it('waits out 429s with retry-after and then succeeds', async () => {
    fake = await startFakeOpenAI({ apiKey, rateLimitFirst: 2, retryAfterMs: 20 });
    const embedder = createOpenAIEmbedder({ apiKey, baseURL: fake.url, model: 'text-embedding-3-small' });
    const vectors = await embedder.embed(titles.slice(0, 2));
    expect(vectors).toHaveLength(2);
    expect(fake.state.rateLimited).toBe(2);
    expect(fake.state.embeddingRequests).toBe(1);
  });

  it('retries 500s with backoff and then succeeds', async () => {
    fake = await startFakeOpenAI({ apiKey, failFirst: 3 });
    const embedder = createOpenAIEmbedder({ apiKey, baseURL: fake.url, model: 'text-embedding-3-small', retryBaseDelayMs: 5 });
    await expect(embedder.embed(['Add `oxc` parser'])).resolves.toHaveLength(1);
    expect(fake.state.failed).toBe(3);
    expect(fake.state.requests).toBe(4);
  });

  it('gives up after maxRetries and surfaces the server error', async () => {
    fake = await startFakeOpenAI({ apiKey, failFirst: 10 });
    const embedder = createOpenAIEmbedder({ apiKey, baseURL: fake.url, model: 'text-embedding-3-small', maxRetries: 2, retryBaseDelayMs: 5 });
    await expect(embedder.embed(['Add `oxc` parser'])).rejects.toMatchObject({ status: 500 });
    expect(fake.state.requests).toBe(3);
  });

  it('does not retry a rejected API key', async () => {
    fake = await startFakeOpenAI({ apiKey });
    const embedder = createOpenAIEmbedder({ apiKey: 'sk-wrong', baseURL: fake.url, model: 'text-embedding-3-small', retryBaseDelayMs: 5 });
    await expect(embedder.embed(['Add `oxc` parser'])).rejects.toMatchObject({ status: 401 });
    expect(fake.state.requests).toBe(1);
  });

  it('stops waiting between retries when aborted', async () => {
    fake = await startFakeOpenAI({ apiKey, rateLimitFirst: 5, retryAfterMs: 60_000 });
    const embedder = createOpenAIEmbedder({ apiKey, baseURL: fake.url, model: 'text-embedding-3-small' });
    const controller = new AbortController();
    const pending = embedder.embed(['Add `oxc` parser'], { signal: controller.signal });
    while (fake.state.rateLimited === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
    expect(fake.state.requests).toBe(1);
  });
});
