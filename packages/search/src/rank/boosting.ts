/**
 * LambdaMART-lite: regression trees fitted to LambdaRank gradients (each pair's logistic gradient
 * weighted by the nDCG change of swapping the two, linear gains as in the evaluation), Newton leaf values, shrinkage. Splits are chosen
 * among at most `bins` quantile thresholds per feature, over a histogram: cheap and deterministic.
 * The trees correct a starting score (the linear model's), so they only learn what it misses.
 */
import type { TreeNode } from './ltrModel.js';
import { dcgDiscount, type QueryMatrix } from './pairwise.js';

export interface BoostingOptions {
  trees: number;
  depth: number;
  /** Fewest candidates a leaf may hold. */
  minLeaf: number;
  shrinkage: number;
  /** L2 on leaf values (XGBoost lambda). */
  leafL2: number;
  bins: number;
}

interface Rows {
  z: number[][];
  binned: Uint8Array[];
  thresholds: number[][];
}

function quantileThresholds(values: number[], bins: number): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  for (let k = 1; k < bins; k++) {
    const t = sorted[Math.floor((k * sorted.length) / bins)]!;
    if (out.length === 0 || t > out[out.length - 1]!) out.push(t);
  }
  // Thresholds split "value <= t" from "value > t"; the largest value never splits.
  return out.filter((t) => t < sorted[sorted.length - 1]!);
}

function binRows(z: number[][], dimensions: number, bins: number): Rows {
  const thresholds = Array.from({ length: dimensions }, (_, j) => quantileThresholds(z.map((x) => x[j]!), bins));
  const binned = z.map((x) =>
    Uint8Array.from(thresholds, (ts, j) => {
      let b = 0;
      while (b < ts.length && x[j]! > ts[b]!) b++;
      return b;
    }),
  );
  return { z, binned, thresholds };
}

/** LambdaRank gradients (g: direction to raise the score) and hessians for one query's scores. */
function lambdas(relevance: readonly number[], scores: readonly number[], g: Float64Array, h: Float64Array, offset: number): void {
  const order = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i);
  const position = new Array<number>(scores.length);
  order.forEach((o, r) => (position[o.i] = r));
  const ideal = [...relevance]
    .sort((a, b) => b - a)
    .reduce((sum, rel, r) => sum + rel * dcgDiscount(r), 0);
  if (ideal === 0) return;
  for (let i = 0; i < relevance.length; i++) {
    for (let j = 0; j < relevance.length; j++) {
      if (relevance[i]! <= relevance[j]!) continue;
      const delta = Math.abs((relevance[i]! - relevance[j]!) * (dcgDiscount(position[i]!) - dcgDiscount(position[j]!))) / ideal;
      const rho = 1 / (1 + Math.exp(scores[i]! - scores[j]!));
      g[offset + i]! += delta * rho;
      g[offset + j]! -= delta * rho;
      const hess = delta * rho * (1 - rho);
      h[offset + i]! += hess;
      h[offset + j]! += hess;
    }
  }
}

function fitTree(rows: Rows, index: number[], g: Float64Array, h: Float64Array, depth: number, o: BoostingOptions): TreeNode {
  let G = 0;
  let H = 0;
  for (const r of index) {
    G += g[r]!;
    H += h[r]!;
  }
  const leaf = (): TreeNode => ({ leaf: (o.shrinkage * G) / (H + o.leafL2) });
  if (depth === 0 || index.length < 2 * o.minLeaf) return leaf();
  const parent = (G * G) / (H + o.leafL2);
  let best = { gain: 1e-9, feature: -1, bin: -1 };
  rows.thresholds.forEach((ts, j) => {
    if (ts.length === 0) return;
    const hg = new Float64Array(ts.length + 1);
    const hh = new Float64Array(ts.length + 1);
    const hc = new Uint32Array(ts.length + 1);
    for (const r of index) {
      const b = rows.binned[r]![j]!;
      hg[b]! += g[r]!;
      hh[b]! += h[r]!;
      hc[b]!++;
    }
    let [gl, hl, cl] = [0, 0, 0];
    for (let b = 0; b < ts.length; b++) {
      gl += hg[b]!;
      hl += hh[b]!;
      cl += hc[b]!;
      if (cl < o.minLeaf || index.length - cl < o.minLeaf) continue;
      const gain = (gl * gl) / (hl + o.leafL2) + ((G - gl) * (G - gl)) / (H - hl + o.leafL2) - parent;
      if (gain > best.gain) best = { gain, feature: j, bin: b };
    }
  });
  if (best.feature < 0) return leaf();
  const left = index.filter((r) => rows.binned[r]![best.feature]! <= best.bin);
  const right = index.filter((r) => rows.binned[r]![best.feature]! > best.bin);
  return {
    feature: best.feature,
    threshold: rows.thresholds[best.feature]![best.bin]!,
    left: fitTree(rows, left, g, h, depth - 1, o),
    right: fitTree(rows, right, g, h, depth - 1, o),
  };
}

function evaluate(node: TreeNode, z: readonly number[]): number {
  let n = node;
  while (!('leaf' in n)) n = z[n.feature]! <= n.threshold ? n.left : n.right;
  return n.leaf;
}

/** Trees that raise the nDCG of `start` scores (one array per query, in candidate order). */
export function boost(queries: readonly QueryMatrix[], start: readonly number[][], dimensions: number, o: BoostingOptions): TreeNode[] {
  const z = queries.flatMap((q) => q.z);
  if (z.length === 0) return [];
  const offsets: number[] = [];
  queries.reduce((at, q) => (offsets.push(at), at + q.z.length), 0);
  const rows = binRows(z, dimensions, o.bins);
  const scores = queries.map((_, qi) => [...start[qi]!]);
  const everyRow = z.map((_, r) => r);
  const trees: TreeNode[] = [];
  for (let t = 0; t < o.trees; t++) {
    const g = new Float64Array(z.length);
    const h = new Float64Array(z.length);
    queries.forEach((q, qi) => lambdas(q.relevance, scores[qi]!, g, h, offsets[qi]!));
    const tree = fitTree(rows, everyRow, g, h, o.depth, o);
    if ('leaf' in tree) break; // nothing left worth a split
    trees.push(tree);
    queries.forEach((q, qi) => q.z.forEach((x, i) => (scores[qi]![i]! += evaluate(tree, x))));
  }
  return trees;
}
