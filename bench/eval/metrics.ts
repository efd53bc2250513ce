/**
 * Ranking metrics over graded judgements, and paired bootstrap confidence intervals.
 *
 * A query's judgement is a list of targets. A target is one cited pull request together with its
 * commits (squash merge, cherry-picks): any of those ids in a ranked list is a hit on that target,
 * but only its first occurrence earns gain, so listing a PR and its commit is not rewarded twice.
 */
import type { Query } from './dataset.js';

export interface Target {
  grade: number;
  ids: ReadonlySet<string>;
}

export interface Judgement {
  queryId: string;
  targets: Target[];
}

/** Builds a judgement: each relevant PR with the relevant commits that belong to it. */
export function judgementOf(query: Query, pullRequestsByCommit: ReadonlyMap<string, ReadonlySet<string>>): Judgement {
  const targets = query.relevant.map((pr) => ({ grade: pr.grade, ids: new Set<string>([pr.id]) }));
  const byPr = new Map(query.relevant.map((pr, index) => [pr.id, targets[index]!]));
  for (const commitId of query.relevant_commits) {
    const owners = [...(pullRequestsByCommit.get(commitId) ?? [])].filter((prId) => byPr.has(prId));
    if (owners.length === 0) {
      // A commit cited without a PR of this query is a target of its own.
      targets.push({ grade: 1, ids: new Set([commitId]) });
      continue;
    }
    for (const prId of owners) (byPr.get(prId)!.ids as Set<string>).add(commitId);
  }
  return { queryId: query.id, targets };
}

/** Gain at each of the first k ranks; a target earns its grade only at its first occurrence. */
export function gainsAt(ranked: readonly string[], judgement: Judgement, k: number): number[] {
  const credited = new Set<Target>();
  return ranked.slice(0, k).map((id) => {
    const target = judgement.targets.find((t) => t.ids.has(id));
    if (!target || credited.has(target)) return 0;
    credited.add(target);
    return target.grade;
  });
}

function dcg(gains: readonly number[]): number {
  return gains.reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
}

/** nDCG@k with linear gains (the grade) and the usual log2 discount. */
export function ndcgAt(ranked: readonly string[], judgement: Judgement, k: number): number {
  const ideal = dcg(
    judgement.targets
      .map((t) => t.grade)
      .sort((a, b) => b - a)
      .slice(0, k),
  );
  return ideal === 0 ? 0 : dcg(gainsAt(ranked, judgement, k)) / ideal;
}

/** Reciprocal rank of the first hit within the top k (0 when none). */
export function reciprocalRankAt(ranked: readonly string[], judgement: Judgement, k: number): number {
  const index = gainsAt(ranked, judgement, k).findIndex((gain) => gain > 0);
  return index < 0 ? 0 : 1 / (index + 1);
}

/** 1 when a target (the PR or one of its commits) appears in the top k, else 0. Its mean is recall@k. */
export function hitAt(ranked: readonly string[], judgement: Judgement, k: number): number {
  return gainsAt(ranked, judgement, k).some((gain) => gain > 0) ? 1 : 0;
}

export interface QueryScores {
  queryId: string;
  ndcg10: number;
  mrr10: number;
  recall10: number;
  recall100: number;
}

export function scoreQuery(ranked: readonly string[], judgement: Judgement): QueryScores {
  return {
    queryId: judgement.queryId,
    ndcg10: ndcgAt(ranked, judgement, 10),
    mrr10: reciprocalRankAt(ranked, judgement, 10),
    recall10: hitAt(ranked, judgement, 10),
    recall100: hitAt(ranked, judgement, 100),
  };
}

export type MetricName = Exclude<keyof QueryScores, 'queryId'>;

/** mulberry32: a small seeded generator, so confidence intervals are reproducible run to run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

export interface Interval {
  mean: number;
  lo: number;
  hi: number;
}

export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  confidence?: number;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function percentile(sorted: readonly number[], q: number): number {
  const position = q * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = sorted[lower] ?? 0;
  const b = sorted[upper] ?? a;
  return a + (b - a) * (position - lower);
}

/** Percentile bootstrap CI of the mean of per-query values (10,000 resamples, seed 1 by default). */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): Interval {
  const { resamples = 10_000, seed = 1, confidence = 0.95 } = options;
  const n = values.length;
  if (n === 0) return { mean: 0, lo: 0, hi: 0 };
  const random = seededRandom(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!;
    means[r] = sum / n;
  }
  const sorted = Array.from(means).sort((a, b) => a - b);
  const tail = (1 - confidence) / 2;
  return { mean: mean(values), lo: percentile(sorted, tail), hi: percentile(sorted, 1 - tail) };
}

/** Paired bootstrap CI of mean(system - baseline): both arrays are per-query values in the same order. */
export function bootstrapDifference(system: readonly number[], baseline: readonly number[], options: BootstrapOptions = {}): Interval {
  if (system.length !== baseline.length) throw new Error(`paired bootstrap needs equal lengths (${system.length} vs ${baseline.length})`);
  return bootstrapMean(
    system.map((value, i) => value - baseline[i]!),
    options,
  );
}

/** Nearest-rank percentile of raw values (latency p50/p95). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
