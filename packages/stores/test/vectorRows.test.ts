import { exactSearch, MetricKind } from 'usearch';
import { describe, expect, it } from 'vitest';
import { decodeRow, encodeRow, ROW_UNIT, rowScorer } from '../src/vector/rows.js';
import { random } from './seededRandom.js';

describe("the vector mirror's 16-bit rows", () => {
  const dims = 24;
  const next = random(5);
  const unit = (): number[] => {
    const v = Array.from({ length: dims }, next);
    const length = Math.hypot(...v);
    return v.map((x) => x / length);
  };
  // 2,500 rows: two whole blocks of a full scan and a part of one.
  const vectors = Array.from({ length: 2_500 }, unit);
  const rows = new Int16Array(vectors.length * dims);
  vectors.forEach((v, r) => encodeRow(v, rows, r * dims));
  const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
    return sum;
  };

  it('gives back each value within half a step (1/65534), the extremes exactly', () => {
    vectors.forEach((v, r) => {
      const back = decodeRow(rows, r * dims, dims);
      v.forEach((x, d) => expect(Math.abs(back[d]! - x)).toBeLessThanOrEqual(ROW_UNIT / 2 + 1e-7));
    });
    const extremes = new Int16Array(3);
    encodeRow([1, -1, 0], extremes, 0);
    expect(Array.from(decodeRow(extremes, 0, 3))).toEqual([1, -1, 0]);
  });

  it('scores a whole matrix, a block at a time, and a set of candidates, as exact inner products of the values held', () => {
    const scorer = rowScorer({ exactSearch, MetricKind });
    const query = Float32Array.from(unit());
    const held = vectors.map((_, r) => dot(decodeRow(rows, r * dims, dims), query));
    const best = (candidates: number[], want: number): number[] => [...candidates].sort((a, b) => held[b]! - held[a]!).slice(0, want);

    const whole = scorer.scan(rows, dims, vectors.length, query, 40);
    expect(Array.from(whole.rows)).toEqual(best(vectors.map((_, r) => r), 40));
    whole.rows.forEach((r, i) => expect(1 - whole.distances[i]!).toBeCloseTo(held[r]!, 5));
    // Only the first rows, fewer than asked for: every one of them, best first.
    expect(Array.from(scorer.scan(rows, dims, 30, query, 40).rows)).toEqual(best(Array.from({ length: 30 }, (_, r) => r), 40));

    const candidates = Array.from({ length: 300 }, (_, i) => (i * 7) % vectors.length);
    const some = scorer.rescore(rows, dims, candidates, query, 25);
    expect(Array.from(some.rows)).toEqual(best(candidates, 25));
    some.rows.forEach((r, i) => expect(1 - some.distances[i]!).toBeCloseTo(held[r]!, 5));
  });
});
