/**
 * findsimilar on `similar.json`: for each known pair (revert, cherry-pick, same issue, ...), ask for
 * the items similar to one side and check whether the partner is among the top k, from both sides.
 */
import { mapLimit } from './concurrency.js';
import type { SimilarPair } from './dataset.js';

/** Dataset id -> dataset ids of the most similar items, best first (the item itself excluded). */
export type FindSimilar = (datasetId: string) => Promise<string[]>;

export interface RelationScore {
  relation: string;
  pairs: number;
  /** Mean over pairs of the share of its two directions that found the partner in the top k. */
  partnerInTopK: number;
}

export interface FindSimilarScores {
  k: number;
  overall: RelationScore;
  byRelation: RelationScore[];
}

function summarise(relation: string, pairScores: number[]): RelationScore {
  const total = pairScores.reduce((a, b) => a + b, 0);
  return { relation, pairs: pairScores.length, partnerInTopK: pairScores.length === 0 ? 0 : total / pairScores.length };
}

export async function scoreFindSimilar(pairs: readonly SimilarPair[], findSimilar: FindSimilar, options: { k?: number; concurrency?: number } = {}): Promise<FindSimilarScores> {
  const { k = 5, concurrency = 4 } = options;
  const ends = [...new Set(pairs.flatMap((pair) => [pair.a, pair.b]))];
  const answers = await mapLimit(ends, concurrency, async (id) => (await findSimilar(id)).filter((other) => other !== id).slice(0, k));
  const topK = new Map(ends.map((id, index) => [id, new Set(answers[index])]));
  const found = (from: string, partner: string): number => (topK.get(from)?.has(partner) ? 1 : 0);
  const scored = pairs.map((pair) => ({ relation: pair.relation, score: (found(pair.a, pair.b) + found(pair.b, pair.a)) / 2 }));
  const relations = [...new Set(scored.map((s) => s.relation))].sort();
  return {
    k,
    overall: summarise('all', scored.map((s) => s.score)),
    byRelation: relations.map((relation) => summarise(relation, scored.filter((s) => s.relation === relation).map((s) => s.score))),
  };
}
