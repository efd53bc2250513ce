import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestFused, byScore } from '../src/pipeline/fuse.js';

describe('bestFused', () => {
  it('keeps what sorting every pooled result and cutting the list would keep, in that order', () => {
    // Scores from a few values, so ties at the cut are common (they are ordered by id).
    const pool = fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), fused: fc.constantFrom(0, 0.1, 0.25, 0.5, 0.5000001, 1) }), { selector: (c) => c.id, maxLength: 400 });
    fc.assert(
      fc.property(pool, fc.integer({ min: 1, max: 250 }), (scored, limit) => {
        const expected = [...scored].sort(byScore((c) => c.fused)).slice(0, limit);
        expect(bestFused(Float64Array.from(scored, (c) => c.fused), limit, (i) => scored[i]!.id).map((i) => scored[i])).toEqual(expected);
      }),
    );
  });
});
