import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineEmbedder } from '../src/embeddings/offline.js';
import { startWorkerPool } from '../src/embeddings/workerPool.js';
import type { EmbeddingProvider } from '../src/embeddings/types.js';
import { cosineSimilarity } from '../src/embeddings/vectors.js';

const DATA = new URL('../../../../shared/data/github-prettier', import.meta.url).pathname;

describe('offline embedder (USE lite on worker threads)', () => {
  let embedder: EmbeddingProvider;
  beforeAll(async () => {
    // Two texts per batch so that one call spreads over both workers and gets reassembled.
    embedder = await createOfflineEmbedder({ threads: 2, minThreads: 2, batchSize: 2, maxChars: 300 });
  });
  afterAll(() => embedder.close());

  it('returns one 512-dim unit vector per text, in input order', async () => {
    const texts = [
      'Fix leading comments in mapped types with `readonly`',
      'Update dependency eslint to v9',
      'Support TypeScript 5 satisfies operator and a much longer description of what changed in the parser',
      '',
      'Add `oxc` parser',
    ];
    const together = await embedder.embed(texts);
    expect(embedder.model).toBe('use-lite-512');
    expect(embedder.dimensions).toBe(512);
    expect(together).toHaveLength(texts.length);
    for (const [i, text] of texts.entries()) {
      const vector = together[i]!;
      expect(vector).toHaveLength(512);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
      const [alone] = await embedder.embed([text]);
      expect(cosineSimilarity(vector, alone!)).toBeGreaterThan(0.9999);
    }
  });

  it('embeds only the first maxChars characters of a long text', async () => {
    const head = 'Speed up the markdown printer by caching line widths. '.repeat(8).slice(0, 300);
    const [long, prefix, other] = await embedder.embed([head + ' Completely unrelated tail about CSS grids.'.repeat(20), head, 'CSS grids']);
    expect(cosineSimilarity(long!, prefix!)).toBeGreaterThan(0.9999);
    expect(cosineSimilarity(long!, other!)).toBeLessThan(0.9);
  });

  it('rejects with the abort reason when the signal is aborted', async () => {
    const controller = new AbortController();
    const pending = embedder.embed(Array.from({ length: 40 }, (_, i) => `pull request number ${i}`), { signal: controller.signal });
    controller.abort(new Error('indexing cancelled'));
    await expect(pending).rejects.toThrow('indexing cancelled');
    // The pool keeps serving other calls afterwards.
    await expect(embedder.embed(['still works'])).resolves.toHaveLength(1);
  });
});

describe('offline embedder lifecycle', () => {
  it('holds one model at rest: a second worker starts while batches wait and stops once idle', async () => {
    const pool = await startWorkerPool({ min: 1, max: 2, idleMs: 200 });
    try {
      expect(pool.size()).toBe(1);
      const texts = Array.from({ length: 12 }, (_, i) => [`Fix markdown list number ${i}`, `Support TypeScript decorators ${i}`]);
      const results = texts.map((batch) => pool.run(batch).promise);
      expect(pool.size()).toBe(2);
      const done = await Promise.all(results);
      expect(done.every((r) => r.dimensions === 512 && r.vectors.length === 2 * 512)).toBe(true);
      for (let i = 0; i < 60 && pool.size() > 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(pool.size()).toBe(1);
      // The pool still answers (and grows again) after shrinking.
      expect((await pool.run(['Fix yaml comments']).promise).dimensions).toBe(512);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('refuses work after close()', async () => {
    const embedder = await createOfflineEmbedder({ threads: 1 });
    await embedder.close();
    await expect(embedder.embed(['too late'])).rejects.toThrow(/closed/);
  });
});

describe('offline embedder in a tsx process', () => {
  it('lets the process exit without close() once work is done', async () => {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const offline = fileURLToPath(new URL('../src/embeddings/offline.ts', import.meta.url));
    const script = `
      import { createOfflineEmbedder } from ${JSON.stringify(offline)};
      const embedder = await createOfflineEmbedder({ threads: 2 });
      const vectors = await embedder.embed(['Add oxc parser', 'Fix markdown lists']);
      console.log(vectors.length, vectors[0].length);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {
      timeout: 50_000,
    });
    expect(stdout.trim()).toBe('2 512');
  });
});

interface CorpusItem {
  id: string;
  type: string;
  title?: string;
}
interface SimilarPair {
  a: string;
  b: string;
  relation: string;
}

function contentWords(title: string): Set<string> {
  return new Set((title.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []).filter((w) => !['revert', 'backport', 'cherry', 'pick'].includes(w)));
}

describe.skipIf(!existsSync(`${DATA}/similar.json`))('offline embedder on real PR titles (needs shared/data/github-prettier)', () => {
  const corpus = existsSync(`${DATA}/corpus.json`) ? (JSON.parse(readFileSync(`${DATA}/corpus.json`, 'utf8')) as CorpusItem[]) : [];
  const similar = existsSync(`${DATA}/similar.json`) ? (JSON.parse(readFileSync(`${DATA}/similar.json`, 'utf8')) as SimilarPair[]) : [];
  const titles = new Map(corpus.filter((x) => x.type === 'pull_request' && x.title).map((x) => [x.id, x.title!]));
  const paired = new Set(similar.flatMap((s) => [s.a, s.b]));
  // Every 97th PR that no labelled pair mentions: a spread of unrelated titles.
  const unrelated = [...titles].filter(([id]) => !paired.has(id)).filter((_, i) => i % 97 === 0).map(([, title]) => title);
  const pairsOf = (relations: string[]) =>
    similar.filter((s) => relations.includes(s.relation) && titles.has(s.a) && titles.has(s.b)).map((s) => [titles.get(s.a)!, titles.get(s.b)!] as const);

  let embedder: EmbeddingProvider;
  let unrelatedVectors: number[][];
  beforeAll(async () => {
    embedder = await createOfflineEmbedder();
    unrelatedVectors = await embedder.embed(unrelated);
  });
  afterAll(() => embedder.close());

  it('puts a restated title (revert, backport, reapply) closer than 90% of unrelated titles', async () => {
    const restated = pairsOf(['revert', 'backport', 'reapply']).filter(([a, b]) => {
      const words = contentWords(b);
      return [...contentWords(a)].filter((w) => words.has(w)).length >= 2;
    });
    expect(restated.length).toBeGreaterThanOrEqual(10);
    const vectors = await embedder.embed(restated.flat());
    const misses = restated.filter((pair, i) => {
      const [a, b] = [vectors[2 * i]!, vectors[2 * i + 1]!];
      const others = unrelatedVectors.map((u) => cosineSimilarity(a, u)).sort((x, y) => x - y);
      const p90 = others[Math.floor(others.length * 0.9)]!;
      return cosineSimilarity(a, b) <= p90;
    });
    expect(misses).toEqual([]);
  });

  it('puts titles of one changelog entry closer together than unrelated titles on average', async () => {
    const entries = pairsOf(['same_changelog_entry']);
    expect(entries.length).toBeGreaterThanOrEqual(20);
    const vectors = await embedder.embed(entries.flat());
    let pairSum = 0;
    let unrelatedSum = 0;
    let aboveMedian = 0;
    entries.forEach((_, i) => {
      const [a, b] = [vectors[2 * i]!, vectors[2 * i + 1]!];
      const others = unrelatedVectors.map((u) => cosineSimilarity(a, u)).sort((x, y) => x - y);
      const sim = cosineSimilarity(a, b);
      pairSum += sim;
      unrelatedSum += others.reduce((s, x) => s + x, 0) / others.length;
      if (sim > others[Math.floor(others.length / 2)]!) aboveMedian++;
    });
    expect(pairSum / entries.length).toBeGreaterThan(unrelatedSum / entries.length + 0.1);
    expect(aboveMedian / entries.length).toBeGreaterThan(0.75);
  });
});
