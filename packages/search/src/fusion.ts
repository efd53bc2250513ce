/** The retrieval paths that fuse into one ranked list. */
export const PATH_NAMES = ['lexical', 'vector', 'entity', 'cluster', 'actor'] as const;
export type PathName = (typeof PATH_NAMES)[number];

/**
 * Weights of the normalised score blend. Each path's score is already in [0, 1] with a meaning that
 * holds across queries (share of the ideal BM25F score, cosine, share of entity weight ...), so a
 * convex combination stays in [0, 1] and is comparable across queries, which findsimilar's threshold
 * and the score bands need. Tuned on the dev queries (bench/results/eval-latest.md).
 */
export interface FusionWeights {
  lexical: number;
  vector: number;
  entity: number;
  cluster: number;
  actor: number;
  /** Recency prior: weight of exp(-ageDays / recencyHalfLifeDays * ln 2). */
  recency: number;
  recencyHalfLifeDays: number;
}

export const DEFAULT_FUSION: FusionWeights = {
  // Tuned on the dev queries by bench/tune-fusion.ts (coordinate ascent on nDCG@10; the test split never
  // seen): dev nDCG@10 0.597 with the first hand-set weights, 0.706 with these. Weights are relative.
  lexical: 2.475,
  vector: 0.05,
  entity: 1.08,
  cluster: 0.09,
  actor: 0.135,
  recency: 0,
  recencyHalfLifeDays: 730,
};

export function recencyScore(occurredAt: string, now: Date, halfLifeDays: number): number {
  const days = Math.max(0, (now.getTime() - Date.parse(occurredAt)) / 86_400_000);
  return Math.exp((-days * Math.LN2) / halfLifeDays);
}

export function fuse(paths: Record<PathName, number>, recency: number, w: FusionWeights): number {
  const total = w.lexical + w.vector + w.entity + w.cluster + w.actor + w.recency;
  const s = w.lexical * paths.lexical + w.vector * paths.vector + w.entity * paths.entity + w.cluster * paths.cluster + w.actor * paths.actor + w.recency * recency;
  return Math.max(0, Math.min(1, s / total));
}
