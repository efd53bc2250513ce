import type { MentionRow } from '@engram/stores';

/**
 * The space topics are clustered in: an item's text embedding blended with a hashed bag of its
 * topical entities (path areas, languages, packages, labels, keywords). Both parts are unit length
 * and scaled so that the cosine of two features is `textWeight * cos(text) + (1 - textWeight) *
 * cos(entities)`: two PRs touching `src/language-css` with `css` files lean together even when their
 * titles are worded differently, and two dependency bumps share `package.json`-free signals such as
 * the package and the `dependencies` label.
 */

/** Entity categories that say what an item is about (not who or which reference). */
export const TOPICAL_CATEGORIES = ['path', 'language', 'package', 'label', 'keyword'] as const;
export type TopicalCategory = (typeof TOPICAL_CATEGORIES)[number];

const CATEGORY_WEIGHT: Readonly<Record<TopicalCategory, number>> = {
  path: 1,
  language: 1,
  package: 1,
  label: 0.7,
  keyword: 0.6,
};

export interface TopicalEntity {
  category: TopicalCategory;
  key: string;
  confidence: number;
  /** Inverse document frequency of the entity in the workspace (generic areas weigh little). */
  idf: number;
  /** Items of the workspace that mention it; one that only this item mentions cannot bring it closer to any other. */
  itemCount: number;
}

export interface FeatureSpace {
  /** Share of the text embedding in the blended cosine, in [0, 1]. */
  textWeight: number;
  /** Buckets of the hashed entity part. */
  entityDimensions: number;
}

export const DEFAULT_FEATURE_SPACE: FeatureSpace = { textWeight: 0.5, entityDimensions: 256 };

/** FNV-1a: a stable, fast string hash for the entity buckets. */
function bucket(text: string, size: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % size;
}

export const inverseDocumentFrequency = (itemCount: number, documentFrequency: number): number =>
  Math.max(0, Math.log((itemCount + 1) / (documentFrequency + 1)));

/** An item's mention of a topical entity as stored, with the entity's document frequency. */
export interface EntityRow extends MentionRow {
  category: TopicalCategory;
}

export const toTopicalEntity = (row: EntityRow, itemCount: number): TopicalEntity => ({
  category: row.category,
  key: row.key,
  confidence: Number(row.confidence),
  idf: inverseDocumentFrequency(itemCount, Math.max(1, Number(row.df))),
  itemCount: Number(row.df),
});

/** The blended feature of one item. An item without topical entities is placed by its text alone. */
export function topicFeature(vector: ArrayLike<number>, entities: readonly TopicalEntity[], space: FeatureSpace = DEFAULT_FEATURE_SPACE): Float32Array {
  const parts = topicParts(norm(vector), entities, space);
  const out = new Float32Array(vector.length + space.entityDimensions);
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] ?? 0) * parts.textScale;
  parts.buckets.forEach((b, k) => (out[vector.length + b] = parts.values[k]!));
  return out;
}

/**
 * `topicFeature` in parts: the scale of its text part (for a vector of norm `textNorm`) and its entity
 * part as the buckets that hold a value (ascending) with their values, as `topicFeature` stores them.
 */
export function topicParts(textNorm: number, entities: readonly TopicalEntity[], space: FeatureSpace = DEFAULT_FEATURE_SPACE): { textScale: number; buckets: number[]; values: Float32Array } {
  const hashed = new Float32Array(space.entityDimensions);
  for (const entity of entities) {
    if (entity.itemCount <= 1) continue;
    hashed[bucket(`${entity.category}:${entity.key}`, space.entityDimensions)]! += CATEGORY_WEIGHT[entity.category] * entity.confidence * entity.idf;
  }
  const entityNorm = norm(hashed);
  const textScale = Math.sqrt(entityNorm === 0 ? 1 : space.textWeight) / (textNorm || 1);
  const buckets: number[] = [];
  if (entityNorm > 0) for (let i = 0; i < hashed.length; i++) if (hashed[i] !== 0) buckets.push(i);
  const entityScale = entityNorm > 0 ? Math.sqrt(1 - space.textWeight) / entityNorm : 0;
  return { textScale, buckets, values: Float32Array.from(buckets, (b) => hashed[b]! * entityScale) };
}

export function norm(v: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] ?? 0) ** 2;
  return Math.sqrt(sum);
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * A per-dimension sum that does not depend on the order of what is added: float64 with Neumaier's
 * compensation, so the total is (all but always) the correctly rounded sum. Members arrive in item id
 * order, and ids are random, so two workspaces holding the same items add them in different orders;
 * a plain float sum would differ in the last digits between them.
 */
export class VectorSum {
  readonly sum: Float64Array;
  private readonly compensation: Float64Array;
  constructor(readonly dimensions: number) {
    this.sum = new Float64Array(dimensions);
    this.compensation = new Float64Array(dimensions);
  }

  add(feature: ArrayLike<number>): void {
    const { sum, compensation } = this;
    for (let i = 0; i < this.dimensions; i++) {
      const x = feature[i] ?? 0;
      const s = sum[i]!;
      const t = s + x;
      compensation[i]! += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
      sum[i] = t;
    }
  }

  /** The totals, compensation applied. */
  totals(): Float64Array {
    const out = new Float64Array(this.dimensions);
    for (let i = 0; i < this.dimensions; i++) out[i] = this.sum[i]! + this.compensation[i]!;
    return out;
  }

  /** The totals divided by `count` (zeros when it is 0). */
  mean(count: number): Float32Array {
    const totals = this.totals();
    const out = new Float32Array(this.dimensions);
    if (count > 0) for (let i = 0; i < this.dimensions; i++) out[i] = totals[i]! / count;
    return out;
  }
}

/** Mean of features (not normalised: its norm measures how coherent the members are). */
export function meanOf(features: readonly Float32Array[], dimensions: number): Float32Array {
  const sum = new VectorSum(dimensions);
  for (const f of features) sum.add(f);
  return sum.mean(features.length);
}

/** Running mean after adding (`sign` 1) or removing (`sign` -1) one member; `count` is before the change. */
export function shiftMean(mean: ArrayLike<number>, count: number, feature: Float32Array, sign: 1 | -1): Float32Array {
  const next = count + sign;
  const out = new Float32Array(feature.length);
  if (next <= 0) return out;
  for (let i = 0; i < feature.length; i++) out[i] = ((mean[i] ?? 0) * count + sign * feature[i]!) / next;
  return out;
}

/**
 * Sentence embeddings are anisotropic: every item sits in a narrow cone around the workspace mean
 * (two random prettier items have a text cosine of 0.41). A cluster that grows big drifts toward that
 * mean and then looks close to everything, so it swallows items of every topic and merges with every
 * other big cluster. Topics are therefore compared after centring: the workspace mean is taken out of
 * both sides before the cosine. The mean is shrunk toward zero while the workspace is small
 * (`sum / (count + MEAN_PRIOR_ITEMS)`), so the first items of a workspace are compared as they are.
 */
export const MEAN_PRIOR_ITEMS = 10;

export interface CentredMean {
  mean: Float32Array;
  /** |mean|². */
  norm2: number;
}

/** The shrunk workspace mean from the sum of all member features and their count. */
export function centredMean(sum: ArrayLike<number>, count: number): CentredMean {
  const mean = new Float32Array(sum.length);
  const scale = 1 / (count + MEAN_PRIOR_ITEMS);
  for (let i = 0; i < sum.length; i++) mean[i] = (sum[i] ?? 0) * scale;
  return { mean, norm2: dot(mean, mean) };
}

/** A feature with the workspace mean taken out, renormalised to unit length (zero if it is the mean). */
export function centre(feature: Float32Array, mean: CentredMean): Float32Array {
  return centreWithLength(feature, mean).centred;
}

/**
 * `centre`, and the length it divided by: `feature = length * centred + mean`, so a caller that keeps the
 * centred feature and its length need not keep the feature too.
 */
export function centreWithLength(feature: Float32Array, mean: CentredMean): { centred: Float32Array; length: number } {
  const centred = Float32Array.from(feature);
  return { centred, length: centreInPlace(centred, mean) };
}

/** `centreWithLength` over the feature's own values (the same values, no second array); returns the length. */
export function centreInPlace(feature: Float32Array, mean: CentredMean): number {
  for (let i = 0; i < feature.length; i++) feature[i] = feature[i]! - (mean.mean[i] ?? 0);
  const length = norm(feature);
  if (length > 0) for (let i = 0; i < feature.length; i++) feature[i]! /= length;
  return length;
}

/**
 * Cosine of a centred unit feature with a raw (uncentred) centroid after centring it:
 * `centred · (c - m) / |c - m|`, with `|c - m|² = |c|² - 2 c·m + |m|²`.
 */
export function centredCosine(centred: Float32Array, centroid: Float32Array, centroidNorm: number, mean: CentredMean): number {
  const towardMean = dot(centroid, mean.mean);
  const length2 = centroidNorm * centroidNorm - 2 * towardMean + mean.norm2;
  if (length2 <= 1e-12) return 0;
  return (dot(centred, centroid) - dot(centred, mean.mean)) / Math.sqrt(length2);
}
