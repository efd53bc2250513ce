import { describe, expect, it } from 'vitest';
import { ndcgAt, seededRandom, type Judgement } from '../../../bench/eval/metrics.js';
import { computeFeatures, createLearnedReranker, crossValidate, FEATURE_NAMES, trainReranker, type Candidate, type TrainingQuery } from '../src/rank/index.js';

function candidate(id: string, over: Partial<Candidate> = {}): Candidate {
  return {
    id,
    title: 'Update dependency eslint to v9',
    snippet: '',
    content: '',
    type: 'pull_request',
    source: 'github',
    occurredAt: '2025-06-01T00:00:00.000Z',
    fused: 0.3,
    paths: { lexical: 0.3, vector: 0.4, entity: 0, cluster: 0, actor: 0 },
    signals: { bm25: 4, bm25Title: 1, bm25Body: 3, matchedTerms: 2, titleTerms: 1, titleCoverage: 0.25, cosine: 0.4, recencyDays: 300, titleLength: 30, bodyLength: 800 },
    ...over,
  };
}

// A small world of release-note style queries: the cited pull request's title carries most of the
// query's words, while distractors (dependency bumps, long bodies that mention everything) often get
// the higher fused score, as a body-heavy first stage would give them.
const AREAS = ['TypeScript', 'Markdown', 'CSS', 'YAML', 'JavaScript', 'Vue', 'Angular', 'GraphQL'];
const WORDS = ['preserve', 'quotes', 'blank', 'lines', 'decorators', 'comments', 'parentheses', 'indentation', 'arrow', 'chains', 'template', 'literals', 'union', 'types', 'imports', 'exports', 'semicolons', 'trailing', 'commas', 'objects'];

function syntheticQuery(random: () => number, n: number): { sample: TrainingQuery; judgement: Judgement } {
  const pick = (): string => WORDS[Math.floor(random() * WORDS.length)]!;
  const area = AREAS[Math.floor(random() * AREAS.length)]!;
  const words = [pick(), pick(), pick(), pick()];
  const query = `${area}: ${words.join(' ')}`;
  const candidates: Candidate[] = [];
  const relevance: number[] = [];
  for (let i = 0; i < 20; i++) {
    const relevant = i === 0;
    const shared = relevant ? 3 + Math.floor(random() * 2) : Math.floor(random() * 3);
    const title = `${relevant || random() < 0.3 ? `${area}: ` : ''}${[...words.slice(0, shared), pick(), pick()].join(' ')}`;
    const bodyHeavy = !relevant && random() < 0.5;
    const fused = Math.min(1, (relevant ? 0.35 : 0.2) + (bodyHeavy ? 0.3 : 0) + random() * 0.25);
    const lexical = Math.min(1, fused + random() * 0.1);
    candidates.push(
      candidate(`q${n}-c${i}`, {
        title,
        type: random() < 0.2 ? 'commit' : 'pull_request',
        fused,
        paths: { lexical, vector: 0.3 + random() * 0.4, entity: random() < 0.3 ? 0.5 : 0, cluster: 0, actor: 0 },
        signals: { bm25: lexical * 12, bm25Title: shared * 1.5, bm25Body: bodyHeavy ? 9 : 3 * random(), titleCoverage: shared / 5, cosine: 0.3 + random() * 0.4, recencyDays: random() * 900, bodyLength: bodyHeavy ? 6000 : 600, isBot: random() < 0.1 ? 1 : 0 },
      }),
    );
    relevance.push(relevant ? 1 : 0);
  }
  // Input order: by fused score, as the service hands them over.
  const order = candidates.map((c, i) => i).sort((a, b) => candidates[b]!.fused - candidates[a]!.fused);
  return {
    sample: { query, candidates: order.map((i) => candidates[i]!), relevance: order.map((i) => relevance[i]!) },
    judgement: { queryId: `q${n}`, targets: [{ grade: 1, ids: new Set([`q${n}-c0`]) }] },
  };
}

const meanNdcg = (lists: string[][], judgements: Judgement[]): number => lists.reduce((s, ids, i) => s + ndcgAt(ids, judgements[i]!, 10), 0) / lists.length;

describe('learned reranker', () => {
  it('scores every candidate in [0, 1], the same way every time', async () => {
    const reranker = createLearnedReranker();
    const candidates = [
      candidate('a'),
      candidate('b', { title: 'TypeScript: preserve quotes for methods named new', fused: 0.9, paths: { lexical: 1, vector: 1, entity: 1, cluster: 1, actor: 1 } }),
      candidate('c', { fused: 0, paths: { lexical: 0, vector: 0, entity: 0, cluster: 0, actor: 0 }, signals: {} }),
      candidate('d', { type: 'linear_issue', occurredAt: 'not a date', signals: { bm25: 1e9, recencyDays: 1e6 } }),
    ];
    const first = await reranker.rerank('TypeScript: Preserve quotes for methods named new', candidates);
    expect(first).toHaveLength(4);
    for (const s of first) expect(s >= 0 && s <= 1 && Number.isFinite(s)).toBe(true);
    expect(await reranker.rerank('TypeScript: Preserve quotes for methods named new', candidates)).toEqual(first);
    expect(await reranker.rerank('anything', [])).toEqual([]);
  });

  it('ranks a candidate higher as its title covers more of the query and its retrieval scores rise', async () => {
    const reranker = createLearnedReranker();
    const query = 'Markdown: keep blank lines between list items';
    const titles = ['Update dependency eslint to v9', 'Markdown: fix lists', 'Markdown: keep blank lines', 'Markdown: keep blank lines between list items'];
    const candidates = titles.map((title, i) =>
      candidate(`t${i}`, { title, fused: 0.2 + 0.2 * i, paths: { lexical: 0.2 + 0.2 * i, vector: 0.3 + 0.15 * i, entity: 0, cluster: 0, actor: 0 }, signals: { bm25: 2 + 4 * i, bm25Title: 2 * i, titleCoverage: i / 4, idfCovered: i / 4 } }),
    );
    const scores = await reranker.rerank(query, candidates);
    for (let i = 1; i < scores.length; i++) expect(scores[i]!).toBeGreaterThan(scores[i - 1]!);
  });

  it('prefers, between two otherwise identical changes, the one that wrote a release note', async () => {
    const reranker = createLearnedReranker();
    const bump = (id: string, releaseNote: number): Candidate =>
      candidate(id, { title: 'Update dependency meriyah to v4.2.1', signals: { bm25: 6, bm25Title: 4, titleCoverage: 0.5, idfCovered: 0.5, recencyDays: 900, bodyLength: 300, releaseNote } });
    const [plain, noted] = await reranker.rerank('Update meriyah to fix several bugs', [bump('plain', 0), bump('noted', 1)]);
    expect(noted!).toBeGreaterThan(plain!);
  });

  it('computes one feature vector per candidate, in the declared feature order', () => {
    const features = computeFeatures('TypeScript: Support import defer', [candidate('a', { title: 'Support `import defer`' }), candidate('b')]);
    expect(features).toHaveLength(2);
    expect(features[0]).toHaveLength(FEATURE_NAMES.length);
    const at = (name: string, row: number): number => features[row]![FEATURE_NAMES.indexOf(name as (typeof FEATURE_NAMES)[number])]!;
    expect(at('phraseInTitle', 0)).toBe(1);
    expect(at('phraseInTitle', 1)).toBe(0);
    expect(at('queryTitleCoverage', 0)).toBeGreaterThan(at('queryTitleCoverage', 1));
  });

  it('marks a change whose title says it repairs something, and crosses it with a bug question', () => {
    const titles = ['fix(yaml): keep comments on empty maps', 'Markdown: Preserve blank lines in lists', "Don't lowercase link labels", 'Add missing parentheses to `let`', 'Support `import defer`', 'Update dependency eslint to v9', 'Prefix the output with a BOM'];
    const candidates = titles.map((title, i) => candidate(`c${i}`, { title }));
    const column = (query: string, name: string): number[] => computeFeatures(query, candidates).map((row) => row[FEATURE_NAMES.indexOf(name as (typeof FEATURE_NAMES)[number])]!);
    expect(column('yaml comments vanish after formatting', 'repairTitle')).toEqual([1, 1, 1, 1, 0, 0, 0]);
    // A bug question crosses it; a how-to question does not, whatever the titles say.
    expect(column('yaml comments vanish after formatting', 'bugTimesRepairTitle')).toEqual([1, 1, 1, 1, 0, 0, 0]);
    expect(column('how do we release a new version', 'bugTimesRepairTitle')).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('trained on judged lists, ranks held-out queries better than the fused order it was given', async () => {
    const random = seededRandom(7);
    const world = Array.from({ length: 90 }, (_, n) => syntheticQuery(random, n));
    const train = world.slice(0, 60);
    const heldOut = world.slice(60);
    const model = trainReranker(
      train.map((w) => w.sample),
      { epochs: 150, trees: 10, calibrationFolds: 3 },
    );
    const reranker = createLearnedReranker(model);
    const before = heldOut.map((w) => w.sample.candidates.map((c) => c.id));
    const after = await Promise.all(
      heldOut.map(async ({ sample }) => {
        const scores = await reranker.rerank(sample.query, sample.candidates);
        return sample.candidates.map((c, i) => ({ id: c.id, s: scores[i]! })).sort((a, b) => b.s - a.s).map((x) => x.id);
      }),
    );
    const judgements = heldOut.map((w) => w.judgement);
    const fused = meanNdcg(before, judgements);
    const reranked = meanNdcg(after, judgements);
    expect(reranked).toBeGreaterThan(fused + 0.2);
    // Calibrated: the relevant candidates get a higher mean probability than the rest.
    const probabilities = await Promise.all(heldOut.map(({ sample }) => reranker.rerank(sample.query, sample.candidates)));
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const relevant = probabilities.flatMap((ps, q) => ps.filter((_, i) => heldOut[q]!.sample.relevance[i]! > 0));
    const others = probabilities.flatMap((ps, q) => ps.filter((_, i) => heldOut[q]!.sample.relevance[i] === 0));
    expect(mean(relevant)).toBeGreaterThan(2 * mean(others));
  });

  it('cross-validates by query: every query is scored out of fold, and reranking beats the fused order', () => {
    const random = seededRandom(3);
    const samples = Array.from({ length: 40 }, (_, n) => syntheticQuery(random, n).sample);
    const cv = crossValidate(samples, { epochs: 100, trees: 0 }, 4);
    expect(cv.scores.every((scores, i) => scores.length === samples[i]!.candidates.length)).toBe(true);
    expect(cv.rerankedNdcg10).toBeGreaterThan(cv.fusedNdcg10 + 0.2);
  });

  it('with LambdaRank weighting, also learns to beat the fused order out of fold, deterministically', () => {
    const random = seededRandom(5);
    const samples = Array.from({ length: 40 }, (_, n) => syntheticQuery(random, n).sample);
    const cv = crossValidate(samples, { epochs: 100, trees: 0, lambda: true }, 4);
    expect(cv.rerankedNdcg10).toBeGreaterThan(cv.fusedNdcg10 + 0.2);
    expect(crossValidate(samples, { epochs: 100, trees: 0, lambda: true }, 4).scores).toEqual(cv.scores);
  });

  it('fits a query of weight 2 as if it had been judged twice', () => {
    const random = seededRandom(7);
    const samples = Array.from({ length: 12 }, (_, n) => syntheticQuery(random, n).sample);
    const options = { epochs: 40, trees: 3, depth: 2, minLeaf: 5, calibrationFolds: 0 };
    const weighted = trainReranker(samples.map((q, i) => (i < 4 ? { ...q, weight: 2 } : q)), options);
    const repeated = trainReranker(samples.flatMap((q, i) => (i < 4 ? [q, q] : [q])), options);
    expect(weighted.linear).toEqual(repeated.linear);
    expect(weighted.trees).toEqual(repeated.trees);
    expect(trainReranker(samples, options).linear).not.toEqual(weighted.linear);
  });

  it('refuses a model trained on another feature version', () => {
    const model = trainReranker([syntheticQuery(seededRandom(1), 0).sample], { epochs: 5, trees: 0, calibrationFolds: 0 });
    expect(() => createLearnedReranker({ ...model, featureVersion: 'ltr-features-v0' })).toThrow(/retrain/);
  });
});
