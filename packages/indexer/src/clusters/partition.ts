import { dot, norm, VectorSum } from './features.js';
import type { FeatureMatrix } from './featureRows.js';

/**
 * The in-memory half of the re-cluster job: merging clusters whose centroids are close and splitting
 * incoherent ones by 2-means. Features are unit vectors, so a cluster's coherence (the mean cosine of
 * its members to their centroid) is simply the norm of their mean. A member's feature is its row in the
 * plan's `FeatureMatrix`.
 */
export interface Member {
  /** Its position among the plan's members (pages concatenated). */
  index: number;
  /** Its feature's row in the plan's `FeatureMatrix`. */
  row: number;
}

export interface Group {
  /** Kept from the database; null for a part split off in this run. */
  id: string | null;
  members: Member[];
  /** Ids of clusters merged into this one. */
  absorbed: string[];
}

export interface PartitionOptions {
  /** Centroid cosine at or above which two clusters merge. */
  mergeThreshold: number;
  /** Clusters at least this big whose coherence is below `splitCoherence` are split in two. */
  minSplitSize: number;
  splitCoherence: number;
  /** A split is kept only when the parts' coherence beats the whole's by this much. */
  splitGain: number;
}

/** The mean of the members' features (not normalised: its norm measures how coherent they are); order-independent, as `meanOf`. */
export function meanOfRows(rows: FeatureMatrix, members: readonly Member[]): Float32Array {
  const { dimensions } = rows;
  const sum = new VectorSum(dimensions);
  const feature = new Float32Array(dimensions);
  for (const m of members) sum.add(rows.read(m.row, feature));
  return sum.mean(members.length);
}

export const coherence = (rows: FeatureMatrix, members: readonly Member[]): number => norm(meanOfRows(rows, members));

/**
 * Greedy merge, closest pair first; a pair merges only if the merged-so-far centroids are still close
 * and the merged cluster would stay at least `minCoherence` coherent. Centroid cosine alone is not
 * evidence: a big, diffuse cluster has a short mean whose direction is near every other one, and
 * merging on it alone chains every such cluster into one blob. The coherence of the union is the
 * member-level test (it is the mean cosine of all members, old and new, to the merged centroid).
 */
export function mergeClose(rows: FeatureMatrix, groups: Group[], threshold: number, minCoherence = 0): { groups: Group[]; merged: number } {
  const { dimensions } = rows;
  const n = groups.length;
  const units = new Float32Array(n * dimensions);
  const sums = groups.map((g) => {
    const sum = new Float32Array(dimensions);
    for (const m of g.members) rows.addTo(m.row, sum);
    return sum;
  });
  sums.forEach((sum, g) => {
    const length = norm(sum) || 1;
    for (let i = 0; i < dimensions; i++) units[g * dimensions + i] = sum[i]! / length;
  });
  const pairs: { a: number; b: number; similarity: number }[] = [];
  for (let a = 0; a < n; a++) {
    const offsetA = a * dimensions;
    for (let b = a + 1; b < n; b++) {
      const offsetB = b * dimensions;
      let similarity = 0;
      for (let i = 0; i < dimensions; i++) similarity += units[offsetA + i]! * units[offsetB + i]!;
      if (similarity >= threshold) pairs.push({ a, b, similarity });
    }
  }
  pairs.sort((x, y) => y.similarity - x.similarity);
  const root = groups.map((_, i) => i);
  const find = (i: number): number => (root[i] === i ? i : (root[i] = find(root[i]!)));
  let merged = 0;
  for (const { a, b } of pairs) {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) continue;
    const sa = sums[ra]!;
    const sb = sums[rb]!;
    if (dot(sa, sb) / ((norm(sa) || 1) * (norm(sb) || 1)) < threshold) continue;
    const size = groups[ra]!.members.length + groups[rb]!.members.length;
    let union = 0;
    for (let i = 0; i < dimensions; i++) union += (sa[i]! + sb[i]!) ** 2;
    if (Math.sqrt(union) / size < minCoherence) continue;
    // The bigger cluster keeps its id, so search results and links stay stable.
    const [keep, gone] = groups[ra]!.members.length >= groups[rb]!.members.length ? [ra, rb] : [rb, ra];
    root[gone] = keep;
    for (let i = 0; i < dimensions; i++) sums[keep]![i]! += sums[gone]![i]!;
    const winner = groups[keep]!;
    const loser = groups[gone]!;
    winner.members.push(...loser.members);
    if (loser.id !== null) winner.absorbed.push(loser.id);
    winner.absorbed.push(...loser.absorbed);
    merged++;
  }
  return { groups: groups.filter((_, i) => find(i) === i), merged };
}

/** Two-means seeded with the member farthest from the centroid and the member farthest from that one. */
export function bisect(rows: FeatureMatrix, members: readonly Member[], iterations = 8): [Member[], Member[]] | null {
  const centroid = meanOfRows(rows, members);
  const farthest = (from: Float32Array): Member => {
    const toward = rows.dotWith(from);
    return members.reduce((worst, m) => (toward(m.row) < toward(worst.row) ? m : worst));
  };
  let a: Float32Array = rows.read(farthest(centroid).row);
  let b: Float32Array = rows.read(farthest(a).row);
  let parts: [Member[], Member[]] = [[], []];
  for (let round = 0; round < iterations; round++) {
    parts = [[], []];
    const towardA = rows.dotWith(a);
    const towardB = rows.dotWith(b);
    for (const m of members) (towardA(m.row) >= towardB(m.row) ? parts[0] : parts[1]).push(m);
    if (parts[0].length === 0 || parts[1].length === 0) return null;
    a = meanOfRows(rows, parts[0]);
    b = meanOfRows(rows, parts[1]);
  }
  return parts;
}

/** Splits incoherent clusters, recursively, while the split makes the parts clearly more coherent. */
export function splitIncoherent(rows: FeatureMatrix, groups: Group[], options: PartitionOptions): { groups: Group[]; split: number } {
  const out: Group[] = [];
  const queue = [...groups];
  let split = 0;
  while (queue.length > 0) {
    const group = queue.pop()!;
    const whole = coherence(rows, group.members);
    const parts = group.members.length >= options.minSplitSize && whole < options.splitCoherence ? bisect(rows, group.members) : null;
    const weighted = parts ? (coherence(rows, parts[0]) * parts[0].length + coherence(rows, parts[1]) * parts[1].length) / group.members.length : 0;
    if (!parts || Math.min(parts[0].length, parts[1].length) < 2 || weighted < whole + options.splitGain) {
      out.push(group);
      continue;
    }
    const [big, small] = parts[0].length >= parts[1].length ? parts : [parts[1], parts[0]];
    queue.push({ id: group.id, members: big, absorbed: group.absorbed }, { id: null, members: small, absorbed: [] });
    split++;
  }
  return { groups: out, split };
}
