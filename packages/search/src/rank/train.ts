/**
 * Training the learned reranker from judged candidate lists: standardise, fit the linear model (RankNet or LambdaRank),
 * boost trees on top, then fit the Platt calibration on out-of-fold scores (scores the model gave
 * to queries it was not trained on, so the probabilities are honest). Also k-fold cross-validation
 * by query, for choosing hyperparameters.
 */
import { boost, type BoostingOptions } from './boosting.js';
import { computeFeatures, FEATURE_NAMES, FEATURE_VERSION } from './features.js';
import { rawScore, standardise, type LtrModel } from './ltrModel.js';
import { trainPairwise, type PairwiseOptions, type QueryMatrix } from './pairwise.js';
import type { Candidate } from './types.js';

/** One judged query: its first-stage candidates and a relevance grade per candidate (0 = not relevant). */
export interface TrainingQuery {
  query: string;
  candidates: Candidate[];
  relevance: number[];
  /**
   * How many times the query counts in training (a whole number, default 1): a query of weight 2 is
   * fitted as if it had been judged twice. Cross-validation still holds it out as one query.
   */
  weight?: number;
}

export interface TrainOptions extends PairwiseOptions, BoostingOptions {
  /** Folds for the out-of-fold scores the calibration is fitted on (0 or 1: in-sample). */
  calibrationFolds: number;
  seed: number;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  l2: 0.01,
  epochs: 300,
  learningRate: 0.05,
  trees: 40,
  depth: 3,
  minLeaf: 20,
  shrinkage: 0.1,
  leafL2: 1,
  bins: 32,
  calibrationFolds: 5,
  seed: 1,
};

interface Prepared {
  features: number[][][];
  relevance: number[][];
  weight: number[];
}

const prepare = (queries: readonly TrainingQuery[]): Prepared => ({
  features: queries.map((q) => computeFeatures(q.query, q.candidates)),
  relevance: queries.map((q) => q.relevance.map((r) => Math.max(0, r))),
  weight: queries.map((q) => Math.max(1, Math.round(q.weight ?? 1))),
});

/** Each query repeated `weight` times: what the fit sees. */
function weighted(data: Prepared): Prepared {
  if (data.weight.every((w) => w === 1)) return data;
  const idx = data.weight.flatMap((w, i) => new Array<number>(w).fill(i));
  return { features: idx.map((i) => data.features[i]!), relevance: idx.map((i) => data.relevance[i]!), weight: idx.map(() => 1) };
}

function meanAndScale(rows: readonly number[][], dimensions: number): { mean: number[]; scale: number[] } {
  const mean = new Array<number>(dimensions).fill(0);
  const scale = new Array<number>(dimensions).fill(0);
  for (const x of rows) for (let j = 0; j < dimensions; j++) mean[j]! += x[j]! / rows.length;
  for (const x of rows) for (let j = 0; j < dimensions; j++) scale[j]! += (x[j]! - mean[j]!) ** 2 / rows.length;
  return { mean, scale: scale.map((v) => (v > 1e-12 ? Math.sqrt(v) : 1)) };
}

type Uncalibrated = Omit<LtrModel, 'calibration' | 'trainedOn'>;

function fitRanker(given: Prepared, o: TrainOptions): Uncalibrated {
  const data = weighted(given);
  const dimensions = FEATURE_NAMES.length;
  const { mean, scale } = meanAndScale(data.features.flat(), dimensions);
  const matrices: QueryMatrix[] = data.features.map((xs, qi) => ({ z: xs.map((x) => standardise({ mean, scale }, x)), relevance: data.relevance[qi]! }));
  const judged = matrices.filter((m) => m.relevance.some((r) => r > 0));
  const linear = trainPairwise(judged, dimensions, o);
  const start = judged.map((m) => m.z.map((z) => rawScore({ linear, trees: [] }, z)));
  const trees = o.trees > 0 ? boost(judged, start, dimensions, o) : [];
  return { featureVersion: FEATURE_VERSION, features: [...FEATURE_NAMES], mean, scale, linear, trees };
}

const scoresOf = (model: Uncalibrated, features: number[][]): number[] => features.map((x) => rawScore(model, standardise(model, x)));

/**
 * Logistic regression of the label (relevant or not) on the raw score. Scores are standardised
 * first and each Newton step is capped, so a badly scaled start or near-separable data cannot diverge.
 */
export function fitPlatt(scores: readonly number[], labels: readonly number[]): { a: number; b: number } {
  const n = scores.length || 1;
  const mu = scores.reduce((x, y) => x + y, 0) / n;
  const sd = Math.sqrt(scores.reduce((x, y) => x + (y - mu) ** 2, 0) / n) || 1;
  const xs = scores.map((s) => (s - mu) / sd);
  const positives = labels.filter((l) => l > 0).length;
  let a = 0;
  let b = Math.log((positives + 0.5) / (n - positives + 0.5));
  const ridge = 1e-4 * n;
  for (let iter = 0; iter < 100; iter++) {
    let [ga, gb, haa, hab, hbb] = [ridge * a, 0, ridge, 0, 1e-9];
    xs.forEach((x, i) => {
      const p = 1 / (1 + Math.exp(-(a * x + b)));
      const d = p - (labels[i]! > 0 ? 1 : 0);
      const w = p * (1 - p);
      ga += d * x;
      gb += d;
      haa += w * x * x;
      hab += w * x;
      hbb += w;
    });
    const det = haa * hbb - hab * hab;
    if (!(det > 1e-12)) break;
    let da = (hbb * ga - hab * gb) / det;
    let db = (haa * gb - hab * ga) / det;
    const step = Math.max(Math.abs(da), Math.abs(db));
    if (step > 1) [da, db] = [da / step, db / step];
    a -= da;
    b -= db;
    if (step < 1e-9) break;
  }
  // Back to the raw score: a * (s - mu) / sd + b.
  return { a: a / sd, b: b - (a * mu) / sd };
}

/** A deterministic assignment of query i to one of k folds. */
export function foldOf(i: number, k: number, seed: number): number {
  let t = (Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(seed, 0x85ebca6b)) >>> 0;
  t = Math.imul(t ^ (t >>> 16), 0x7feb352d) >>> 0;
  return ((t ^ (t >>> 15)) >>> 0) % k;
}

function subset(data: Prepared, keep: (i: number) => boolean): Prepared {
  const idx = data.features.map((_, i) => i).filter(keep);
  return { features: idx.map((i) => data.features[i]!), relevance: idx.map((i) => data.relevance[i]!), weight: idx.map((i) => data.weight[i]!) };
}

/** Raw scores each query gets from a model trained without its fold. */
function outOfFoldScores(data: Prepared, o: TrainOptions, k: number): number[][] {
  const out: number[][] = data.features.map(() => []);
  for (let f = 0; f < k; f++) {
    const model = fitRanker(subset(data, (i) => foldOf(i, k, o.seed) !== f), o);
    data.features.forEach((xs, i) => {
      if (foldOf(i, k, o.seed) === f) out[i] = scoresOf(model, xs);
    });
  }
  return out;
}

export function trainReranker(queries: readonly TrainingQuery[], options: Partial<TrainOptions> = {}): LtrModel {
  const o = { ...DEFAULT_TRAIN_OPTIONS, ...options };
  const data = prepare(queries);
  if (!data.relevance.some((r) => r.some((x) => x > 0))) throw new Error('trainReranker needs at least one query with a relevant candidate');
  const model = fitRanker(data, o);
  const calibrationScores = o.calibrationFolds > 1 ? outOfFoldScores(data, o, o.calibrationFolds) : data.features.map((xs) => scoresOf(model, xs));
  const calibration = fitPlatt(calibrationScores.flat(), data.relevance.flat());
  return { ...model, calibration };
}

/** nDCG@k of one list ordered by `scores`, ideal from the list's own judgements (linear gains). */
export function listNdcg(scores: readonly number[], relevance: readonly number[], k = 10): number {
  const dcg = (gains: number[]): number => gains.slice(0, k).reduce((sum, g, r) => sum + g / Math.log2(r + 2), 0);
  const ideal = dcg([...relevance].sort((a, b) => b - a));
  if (ideal === 0) return 0;
  const order = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i);
  return dcg(order.map((o) => relevance[o.i]!)) / ideal;
}

export interface CrossValidation {
  folds: number;
  /** Mean list nDCG@10 of the fused order and of the reranked order over queries with a relevant candidate. */
  fusedNdcg10: number;
  rerankedNdcg10: number;
  /** Per query (in input order), reranked out of fold; NaN for queries with no relevant candidate. */
  perQuery: number[];
  /** Out-of-fold raw scores per query, in candidate order. */
  scores: number[][];
}

export function crossValidate(queries: readonly TrainingQuery[], options: Partial<TrainOptions> = {}, folds = 5): CrossValidation {
  const o = { ...DEFAULT_TRAIN_OPTIONS, ...options };
  const data = prepare(queries);
  const oof = outOfFoldScores(data, o, folds);
  const judged = queries.map((_, i) => i).filter((i) => data.relevance[i]!.some((r) => r > 0));
  const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const perQuery = queries.map((q, i) => (judged.includes(i) ? listNdcg(oof[i]!, data.relevance[i]!) : Number.NaN));
  return {
    folds,
    fusedNdcg10: mean(judged.map((i) => listNdcg(queries[i]!.candidates.map((c) => c.fused), data.relevance[i]!))),
    rerankedNdcg10: mean(judged.map((i) => perQuery[i]!)),
    perQuery,
    scores: oof,
  };
}
