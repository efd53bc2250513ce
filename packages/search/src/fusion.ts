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
  /** Share of the query's adjacent term pairs found close together in the item (phrase evidence). */
  proximity: number;
  /** IDF-weighted share of the query's terms found anywhere in the item (coordination). */
  termCoverage: number;
}

/** Per-candidate evidence that is not a retrieval path, each in [0, 1]. */
export interface FusionSignals {
  recency: number;
  proximity: number;
  termCoverage: number;
}

export const DEFAULT_FUSION: FusionWeights = {
  // Tuned on the dev queries by bench/tune-fusion.ts (coordinate ascent on nDCG@10; the test split never
  // seen). Dev nDCG@10: 0.699 with the five paths alone; 0.745 with term coverage and proximity added,
  // 0.735 out-of-fold under 5-fold cross-validation of the tuning itself. Weights are relative.
  lexical: 1.857,
  vector: 0.225,
  entity: 1.215,
  cluster: 0.18,
  actor: 0.135,
  recency: 0.464,
  recencyHalfLifeDays: 730,
  proximity: 0.522,
  termCoverage: 1.857,
};

/** 1 for what happened now, halving every `halfLifeDays` before (`occurredAt` in ms since the epoch). */
export function recencyScore(occurredAt: number, now: Date, halfLifeDays: number): number {
  const days = Math.max(0, (now.getTime() - occurredAt) / 86_400_000);
  return Math.exp((-days * Math.LN2) / halfLifeDays);
}

/** A signal as a share in [0, 1] (0 when absent). */
const share = (x: number | undefined): number => (typeof x === 'number' && Number.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0);

/** The signals of a pooled candidate, from its lexical-path signals and its date. */
export function fusionSignals(signals: Readonly<{ proximity?: number; idfCovered?: number }>, recency: number): FusionSignals {
  return fusionSignalsInto(signals, recency, { recency: 0, proximity: 0, termCoverage: 0 });
}

/** `fusionSignals` into `out` (fusion reads them for every pooled result: one object a search, not one a result). */
export function fusionSignalsInto(signals: Readonly<{ proximity?: number; idfCovered?: number }>, recency: number, out: FusionSignals): FusionSignals {
  out.recency = recency;
  out.proximity = share(signals.proximity);
  out.termCoverage = share(signals.idfCovered);
  return out;
}

/** Convex combination of the path scores and signals: in [0, 1], comparable across queries. */
export function fuse(paths: Record<PathName, number>, signals: FusionSignals, w: FusionWeights): number {
  return blend(paths.lexical, paths.vector, paths.entity, paths.cluster, paths.actor, signals, w);
}

/** `fuse` of the path scores at `scores[at ... at + 4]`, in PATH_NAMES' order (a pool's row, `Pool.scores`). */
export function fuseAt(scores: Float64Array, at: number, signals: FusionSignals, w: FusionWeights): number {
  return blend(scores[at]!, scores[at + 1]!, scores[at + 2]!, scores[at + 3]!, scores[at + 4]!, signals, w);
}

function blend(lexical: number, vector: number, entity: number, cluster: number, actor: number, signals: FusionSignals, w: FusionWeights): number {
  const total = w.lexical + w.vector + w.entity + w.cluster + w.actor + w.recency + w.proximity + w.termCoverage;
  const s =
    w.lexical * lexical +
    w.vector * vector +
    w.entity * entity +
    w.cluster * cluster +
    w.actor * actor +
    w.recency * signals.recency +
    w.proximity * signals.proximity +
    w.termCoverage * signals.termCoverage;
  return total > 0 ? Math.max(0, Math.min(1, s / total)) : 0;
}
