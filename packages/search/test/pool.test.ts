import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CandidateRow, PoolRow, SearchReadModel } from '@engram/stores';
import { FUSION_SIGNAL_COUNT, FUSION_SIGNALS, poolCandidates } from '../src/candidates.js';
import { RankedScores, type PathResult, type PathSignals } from '../src/paths/types.js';

/**
 * A workspace of `prs` pull requests, each with two commits (`c<i>a`, `c<i>b`), and `lone` commits of no
 * pull request; a read model that knows their types and links and nothing else.
 */
function workspace(prs: number, lone: number): { ids: string[]; read: SearchReadModel } {
  const rows = new Map<string, CandidateRow>();
  for (let i = 0; i < prs; i++) {
    rows.set(`p${i}`, { id: `p${i}`, type: 'pull_request', occurredAt: i });
    for (const s of ['a', 'b']) rows.set(`c${i}${s}`, { id: `c${i}${s}`, type: 'commit', occurredAt: i, pr: `p${i}` });
  }
  for (let i = 0; i < lone; i++) rows.set(`l${i}`, { id: `l${i}`, type: 'commit', occurredAt: i });
  const read = {
    changeRows: async (_ws: string, ids: readonly string[]) => ids.map((id) => rows.get(id)),
    poolRows: async (_filter: unknown, ids: readonly string[]) => {
      const out = new Map<string, PoolRow>();
      for (const id of ids) {
        const row = rows.get(id);
        if (row) out.set(id, { id: row.id, type: row.type, occurredAt: row.occurredAt });
      }
      return out;
    },
  } as unknown as SearchReadModel;
  return { ids: [...rows.keys()], read };
}

/** Signals by position, as the lexical path keeps them, and by id. */
function signalsOf(ids: readonly string[], values: readonly Record<string, number>[]): PathSignals {
  return {
    get: (id) => values[ids.indexOf(id)],
    at: (position, name) => values[position]?.[name],
  };
}

describe('pooling', () => {
  it("gives each result fusion's signals as the largest over the items it stands for (from 0), read by position", async () => {
    const { ids, read } = workspace(6, 6);
    const signal = fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true }));
    const path = fc.uniqueArray(fc.constantFrom(...ids), { maxLength: ids.length });
    await fc.assert(
      fc.asyncProperty(path, path, fc.array(fc.record({ proximity: signal, idfCovered: signal }), { minLength: ids.length, maxLength: ids.length }), async (lexicalIds, vectorIds, values) => {
        const lexical: PathResult = { scores: new RankedScores(lexicalIds, lexicalIds.map((_, i) => 1 / (i + 1))), signals: signalsOf(lexicalIds, values), ms: 0 };
        // Another path's signals, by id only (as the vector path's): fusion's two signals are not among them.
        const vector: PathResult = { scores: new Map(vectorIds.map((id, i) => [id, 1 / (i + 2)])), signals: new Map(vectorIds.map((id) => [id, { cosine: 0.5 }])), ms: 0 };
        const pool = await poolCandidates(read, { workspaceId: 'w' }, { lexical, vector });
        try {
          for (let r = 0; r < pool.size; r++) {
            const members = pool.members[r] ?? [pool.rows[r]!.id];
            FUSION_SIGNALS.forEach((name, k) => {
              const expected = Math.max(0, ...members.map((id) => lexical.signals!.get(id)?.[name] ?? 0));
              expect(pool.fusionSignals[r * FUSION_SIGNAL_COUNT + k]).toBe(expected);
            });
          }
        } finally {
          pool.release();
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reads a path scores given as arrays as it reads a map of them', () => {
    const scores = new RankedScores(['b', 'a', 'c'], Float64Array.from([0.9, 0.5, 0.1]));
    const seen: [string, number][] = [];
    scores.forEach((score, id) => seen.push([id, score]));
    expect(seen).toEqual([...new Map([['b', 0.9], ['a', 0.5], ['c', 0.1]])]);
    expect([...scores]).toEqual(seen);
    expect(scores.size).toBe(3);
    expect(scores.get('a')).toBe(0.5);
    expect(scores.has('d')).toBe(false);
  });
});
