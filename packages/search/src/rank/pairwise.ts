/**
 * Linear RankNet: weights that minimise the pairwise logistic loss log(1 + exp(-(s_i - s_j))) over
 * every (more relevant, less relevant) pair of a query, each query weighing the same whatever its
 * number of pairs, with an L2 penalty. With `lambda`, linear LambdaRank: each pair's gradient weighs
 * the nDCG change of swapping the two (Burges 2010), so errors at the top of the list count most.
 * Full-batch Adam, deterministic (zero start, no sampling).
 */
export interface QueryMatrix {
  /** Standardised feature vectors of the query's candidates. */
  z: number[][];
  relevance: number[];
}

export interface PairwiseOptions {
  l2: number;
  epochs: number;
  learningRate: number;
  /**
   * LambdaRank weighting: each pair's gradient is scaled by the nDCG change of swapping the two at
   * their current ranks (recomputed every epoch), so the fit spends itself on the top of the list.
   */
  lambda?: boolean;
}

export interface LinearWeights {
  bias: number;
  weights: number[];
}

interface Pair {
  hi: number[];
  lo: number[];
  weight: number;
}

function pairsOf(queries: readonly QueryMatrix[]): Pair[] {
  const pairs: Pair[] = [];
  for (const q of queries) {
    const own: Pair[] = [];
    q.relevance.forEach((ri, i) => {
      q.relevance.forEach((rj, j) => {
        if (ri > rj) own.push({ hi: q.z[i]!, lo: q.z[j]!, weight: ri - rj });
      });
    });
    const total = own.reduce((a, p) => a + p.weight, 0);
    for (const p of own) pairs.push({ ...p, weight: p.weight / total });
  }
  return pairs;
}

/** DCG discount of a 0-based rank. */
export const dcgDiscount = (rank: number): number => 1 / Math.log2(rank + 2);

/** Per pair of each query (in pairsOf order): |delta nDCG| of swapping the two at the ranks `w` gives them. */
function lambdaWeights(queries: readonly QueryMatrix[], w: Float64Array): number[] {
  const out: number[] = [];
  for (const q of queries) {
    const scores = q.z.map((z) => z.reduce((a, x, j) => a + x * w[j]!, 0));
    const position = new Array<number>(scores.length);
    scores
      .map((s, i) => ({ s, i }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .forEach((o, r) => (position[o.i] = r));
    const ideal = [...q.relevance].sort((a, b) => b - a).reduce((sum, rel, r) => sum + rel * dcgDiscount(r), 0) || 1;
    q.relevance.forEach((ri, i) => {
      q.relevance.forEach((rj, j) => {
        if (ri > rj) out.push(Math.abs((ri - rj) * (dcgDiscount(position[i]!) - dcgDiscount(position[j]!))) / ideal);
      });
    });
  }
  return out;
}

export function trainPairwise(queries: readonly QueryMatrix[], dimensions: number, options: PairwiseOptions): LinearWeights {
  const pairs = pairsOf(queries);
  const norm = queries.filter((q) => q.relevance.some((r) => r > 0)).length || 1;
  const w = new Float64Array(dimensions);
  const m = new Float64Array(dimensions);
  const v = new Float64Array(dimensions);
  const grad = new Float64Array(dimensions);
  const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];
  for (let epoch = 1; epoch <= options.epochs; epoch++) {
    grad.fill(0);
    const deltas = options.lambda ? lambdaWeights(queries, w) : null;
    for (const [k, pair] of pairs.entries()) {
      const { hi, lo } = pair;
      const weight = deltas ? deltas[k]! : pair.weight;
      let diff = 0;
      for (let j = 0; j < dimensions; j++) diff += w[j]! * (hi[j]! - lo[j]!);
      // d/dw log(1 + exp(-diff)) = -sigmoid(-diff) * (hi - lo)
      const coef = (-weight / (1 + Math.exp(diff))) / norm;
      for (let j = 0; j < dimensions; j++) grad[j]! += coef * (hi[j]! - lo[j]!);
    }
    for (let j = 0; j < dimensions; j++) {
      const g = grad[j]! + options.l2 * w[j]!;
      m[j] = beta1 * m[j]! + (1 - beta1) * g;
      v[j] = beta2 * v[j]! + (1 - beta2) * g * g;
      const mHat = m[j]! / (1 - beta1 ** epoch);
      const vHat = v[j]! / (1 - beta2 ** epoch);
      w[j]! -= (options.learningRate * mHat) / (Math.sqrt(vHat) + eps);
    }
  }
  // A pairwise loss leaves the bias free: 0 here, the Platt calibration sets the offset.
  return { bias: 0, weights: Array.from(w) };
}
