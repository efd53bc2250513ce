import { describe, expect, it } from 'vitest';
import type { Query } from '../../bench/eval/dataset.js';
import { bootstrapDifference, bootstrapMean, hitAt, judgementOf, ndcgAt, quantile, reciprocalRankAt, scoreQuery, seededRandom, type Judgement } from '../../bench/eval/metrics.js';

const query = (relevant: { id: string; grade: number }[], commits: string[] = []): Query => ({
  id: 'q1',
  query: 'anything',
  relevant: relevant.map((r) => ({ ...r, type: 'pull_request', number: Number(r.id.split(':')[1]) })),
  relevant_commits: commits,
  context: null,
  ambiguous_with: [],
});

const byCommit = new Map([
  ['commit:aaa', new Set(['pull_request:1'])],
  ['commit:bbb', new Set(['pull_request:1'])],
  ['commit:ccc', new Set(['pull_request:2'])],
]);

describe('judgements', () => {
  it('groups each cited PR with its commits, and keeps an unowned commit as its own target', () => {
    const judgement = judgementOf(query([{ id: 'pull_request:1', grade: 1 }], ['commit:aaa', 'commit:bbb', 'commit:zzz']), byCommit);
    expect(judgement.targets.map((t) => [...t.ids].sort())).toEqual([['commit:aaa', 'commit:bbb', 'pull_request:1'], ['commit:zzz']]);
  });
});

describe('ranking metrics', () => {
  const one = judgementOf(query([{ id: 'pull_request:1', grade: 1 }], ['commit:aaa']), byCommit);
  const two = judgementOf(query([{ id: 'pull_request:1', grade: 1 }, { id: 'pull_request:2', grade: 1 }], ['commit:aaa', 'commit:ccc']), byCommit);

  it('scores a single target at rank 2 as 1/log2(3) and MRR 1/2', () => {
    expect(ndcgAt(['x', 'pull_request:1'], one, 10)).toBeCloseTo(1 / Math.log2(3), 10);
    expect(reciprocalRankAt(['x', 'pull_request:1'], one, 10)).toBe(0.5);
  });

  it('counts a commit as a hit on its PR', () => {
    expect(ndcgAt(['commit:aaa'], one, 10)).toBe(1);
    expect(hitAt(['x', 'y', 'commit:aaa'], one, 3)).toBe(1);
    expect(hitAt(['x', 'y', 'commit:aaa'], one, 2)).toBe(0);
  });

  it('credits a PR and its commit in one list only once, at the first occurrence', () => {
    const duplicated = ndcgAt(['x', 'commit:aaa', 'pull_request:1'], one, 10);
    expect(duplicated).toBeCloseTo(1 / Math.log2(3), 10);
    expect(duplicated).toBe(ndcgAt(['x', 'commit:aaa', 'y'], one, 10));
    // With two targets, a duplicate of the first does not stand in for the second.
    expect(ndcgAt(['pull_request:1', 'commit:aaa'], two, 10)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)), 10);
  });

  it('computes nDCG for two targets by hand', () => {
    // DCG = 1 + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3)
    expect(ndcgAt(['pull_request:2', 'x', 'pull_request:1'], two, 10)).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3)), 10);
  });

  it('uses the grade as the gain', () => {
    const graded: Judgement = { queryId: 'g', targets: [{ grade: 2, ids: new Set(['a']) }, { grade: 1, ids: new Set(['b']) }] };
    const ideal = 2 + 1 / Math.log2(3);
    expect(ndcgAt(['b', 'a'], graded, 10)).toBeCloseTo((1 + 2 / Math.log2(3)) / ideal, 10);
    expect(ndcgAt(['a', 'b'], graded, 10)).toBeCloseTo(1, 10);
  });

  it('ignores hits below the cut-off', () => {
    const ranked = [...Array.from({ length: 10 }, (_, i) => `x${i}`), 'pull_request:1'];
    expect(scoreQuery(ranked, one)).toEqual({ queryId: 'q1', ndcg10: 0, mrr10: 0, recall10: 0, recall100: 1 });
  });
});

describe('bootstrap', () => {
  const sample = (n: number, seed: number): number[] => {
    const random = seededRandom(seed);
    return Array.from({ length: n }, () => (random() < 0.6 ? 1 : 0));
  };

  it('gives an interval around the mean that narrows as the sample grows', () => {
    const small = bootstrapMean(sample(50, 7), { resamples: 2000 });
    const large = bootstrapMean(sample(2000, 7), { resamples: 2000 });
    for (const interval of [small, large]) {
      expect(interval.lo).toBeLessThanOrEqual(interval.mean);
      expect(interval.hi).toBeGreaterThanOrEqual(interval.mean);
    }
    expect(large.hi - large.lo).toBeLessThan((small.hi - small.lo) / 3);
  });

  it('is reproducible for a seed', () => {
    const values = sample(100, 3);
    expect(bootstrapMean(values, { seed: 9, resamples: 1000 })).toEqual(bootstrapMean(values, { seed: 9, resamples: 1000 }));
  });

  it('puts the paired difference above zero when one system wins on most queries', () => {
    const baseline = sample(200, 11);
    const better = baseline.map((v, i) => (i % 4 === 0 ? 1 : v));
    const interval = bootstrapDifference(better, baseline, { resamples: 2000 });
    expect(interval.lo).toBeGreaterThan(0);
    expect(bootstrapDifference(baseline, baseline, { resamples: 500 })).toEqual({ mean: 0, lo: 0, hi: 0 });
    expect(() => bootstrapDifference([1], [1, 0])).toThrow();
  });

  it('reads latency percentiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.95)).toBe(95);
  });
});
