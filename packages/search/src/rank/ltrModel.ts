/**
 * The learning-to-rank model: standardised features -> a linear score plus a small boosted tree
 * ensemble (LambdaMART-style, may be empty) -> a Platt sigmoid, so the output is a probability of
 * relevance in [0, 1] that means the same across queries. Plain JSON, so trained weights ship as a
 * module (model.ts) and no dependency is needed to run it.
 */
export type TreeNode = { leaf: number } | { feature: number; threshold: number; left: TreeNode; right: TreeNode };

export interface LtrModel {
  /** Version of the feature computation the model was trained on (FEATURE_VERSION). */
  featureVersion: string;
  features: readonly string[];
  /** x' = (x - mean) / scale, per feature. */
  mean: readonly number[];
  scale: readonly number[];
  linear: { bias: number; weights: readonly number[] };
  /** Each tree's output is added as is (the shrinkage is already applied to its leaves). */
  trees: readonly TreeNode[];
  /** Probability of relevance = sigmoid(a * score + b). */
  calibration: { a: number; b: number };
  /** Free-form provenance: data, split, hyperparameters, CV figures. */
  trainedOn?: Record<string, unknown>;
}

export const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));

export function standardise(model: Pick<LtrModel, 'mean' | 'scale'>, x: readonly number[]): number[] {
  return x.map((v, j) => (v - (model.mean[j] ?? 0)) / (model.scale[j] || 1));
}

export function treeOutput(node: TreeNode, z: readonly number[]): number {
  let n = node;
  while (!('leaf' in n)) n = (z[n.feature] ?? 0) <= n.threshold ? n.left : n.right;
  return n.leaf;
}

/** The uncalibrated ranking score of standardised features. */
export function rawScore(model: Pick<LtrModel, 'linear' | 'trees'>, z: readonly number[]): number {
  let s = model.linear.bias;
  for (let j = 0; j < z.length; j++) s += (model.linear.weights[j] ?? 0) * z[j]!;
  for (const tree of model.trees) s += treeOutput(tree, z);
  return s;
}

/** Probability of relevance of raw feature vectors (not standardised). */
export function predict(model: LtrModel, features: readonly number[]): number {
  const z = standardise(model, features);
  return sigmoid(model.calibration.a * rawScore(model, z) + model.calibration.b);
}
