/**
 * The CPU half of the re-cluster job, as a pure function of plain data: features from vectors and
 * entities, the workspace mean, merge and split, labels and member similarities. It runs in a worker
 * thread (reclusterWorker.ts) or inline; the same input gives the same plan either way. The input comes
 * in pages (as read from the database) with typed arrays, so the worker path can transfer them.
 */
import { FeatureRows, SharedFeatureRows, type FeatureMatrix } from './featureRows.js';
import { centredCosine, centredMean, norm, toTopicalEntity, topicFeature, topicParts, VectorSum, type CentredMean, type EntityRow, type FeatureSpace } from './features.js';
import { clusterLabels, itemTerms, type ClusterLabels, type LabelMember } from './labels.js';
import { meanOfRows, mergeClose, splitIncoherent, type Group, type Member, type PartitionOptions } from './partition.js';

/**
 * One page of cluster members, in item id order. Members are known by position (pages concatenated): the
 * caller keeps their item ids, and the plan names members by index.
 */
export interface ReclusterPage {
  /** Each member's current cluster. */
  clusterIds: string[];
  /** Length of each vector; 0 when no member of the page has one. */
  dimensions: number;
  /**
   * Row i holds member i's chunk-0 vector (`dimensions` values), zeros when it has none: 32-bit floats,
   * as every vector store keeps them, so the values are exactly the stored ones at half the bytes of a
   * Float64Array (the pages of a 100k-item re-cluster carry 400 MB of vectors at 512 dimensions).
   */
  vectors: Float32Array;
  /**
   * Instead of `vectors` (then empty), with a plan over shared vectors (`SharedVectors`): member i's
   * chunk-0 row in the shared matrix, -1 where it has none.
   */
  rows?: Int32Array;
  /** 1 where member i has a vector. */
  hasVector: Uint8Array;
  /** Topical entity mentions of member i (only needed for members with a vector). */
  mentions: EntityRow[][];
  /** Title of member i (only needed for members with a vector). */
  titles: string[];
}

/**
 * The vector mirror's matrix (unit rows on a SharedArrayBuffer, each value `unit` x the 16-bit integer held),
 * read in place by a plan whose pages give rows.
 */
export interface SharedVectors {
  data: Int16Array;
  unit: number;
  dimensions: number;
}

export interface PlanOptions {
  partition: PartitionOptions;
  space: FeatureSpace;
  /** Items in the workspace: the N of the entity IDF. */
  itemCount: number;
  /** Clusters at least this big get their 10 most central titles in the plan (for an LLM summary); 0 = none. */
  centralTitlesMinMembers: number;
}

export interface PlannedCluster {
  /** Kept from the database; null for a cluster split off in this run (it gets a new id when written). */
  id: string | null;
  labels: ClusterLabels;
  /** The 10 most central titles, when asked for. */
  centralTitles: string[];
}

export interface ReclusterPlan {
  clusters: PlannedCluster[];
  /** Row c is cluster c's raw (uncentred) centroid: what assignment compares against. */
  centroids: Float32Array;
  dimensions: number;
  /** Member m: its index in the input (pages concatenated), its cluster, and its centred similarity to it. */
  memberItems: Int32Array;
  memberClusters: Int32Array;
  memberSimilarities: Float32Array;
  /** Clusters merged away, each with the index of the cluster that absorbed it. */
  redirects: { from: string; to: number }[];
  merged: number;
  split: number;
}

export interface Planner {
  /** Computes the features of one page (pages in item id order); the page's vectors can go after. */
  addPage(page: ReclusterPage): void;
  finish(): ReclusterPlan;
}

export function createPlanner(options: PlanOptions, shared?: SharedVectors): Planner {
  const { space } = options;
  let vectorDimensions = 0;
  let dimensions = 0;
  let sum = new VectorSum(0);
  // Raw features give the stored centroids (assignment centres them itself); the partition works on
  // centred ones, so that closeness means "about the same thing", not "near the workspace mean".
  let rows: FeatureRows | SharedFeatureRows | null = null;
  /** Member i's row in `rows`, -1 without a vector. */
  const rowOf: number[] = [];
  const titles: string[] = [];
  // A member's label terms, each term's string shared by every member that has it (an array, not a Set:
  // 100k members' sets were most of the compute thread's heap).
  const terms: (readonly string[] | null)[] = [];
  const interned = new Map<string, string>();
  const intern = (term: string): string => interned.get(term) ?? (interned.set(term, term), term);
  // Each member's current cluster as an index into `clusterIds`: a page's ids arrive as strings of their own
  // (100k members, a few thousand clusters).
  const clusterOf: number[] = [];
  const clusterIds: string[] = [];
  const clusterIndex = new Map<string, number>();
  let scratch: Float32Array | null = null;
  return {
    addPage(page) {
      if (vectorDimensions === 0 && page.dimensions > 0) {
        vectorDimensions = page.dimensions;
        dimensions = vectorDimensions + space.entityDimensions;
        sum = new VectorSum(dimensions);
        rows = page.rows && shared ? new SharedFeatureRows(shared.data, shared.unit, vectorDimensions, space.entityDimensions) : new FeatureRows(dimensions);
      }
      if (rows && rows instanceof SharedFeatureRows !== Boolean(page.rows)) throw new Error("a plan's pages give either every member's row in the shared vectors or every member's vector");
      for (let i = 0; i < page.clusterIds.length; i++) {
        const clusterId = page.clusterIds[i]!;
        let cluster = clusterIndex.get(clusterId);
        if (cluster === undefined) {
          cluster = clusterIds.length;
          clusterIds.push(clusterId);
          clusterIndex.set(clusterId, cluster);
        }
        clusterOf.push(cluster);
        if (!rows || page.hasVector[i] !== 1 || page.dimensions !== vectorDimensions) {
          rowOf.push(-1);
          titles.push('');
          terms.push(null);
          continue;
        }
        const entities = (page.mentions[i] ?? []).map((m) => toTopicalEntity(m, options.itemCount));
        if (rows instanceof SharedFeatureRows) {
          const textRow = page.rows![i]!;
          const parts = topicParts(rows.textNorm(textRow), entities, space);
          const row = rows.push(textRow, parts.textScale, parts.buckets, parts.values);
          sum.add(rows.read(row, (scratch ??= new Float32Array(dimensions))));
          rowOf.push(row);
        } else {
          const feature = topicFeature(page.vectors.subarray(i * page.dimensions, (i + 1) * page.dimensions), entities, space);
          sum.add(feature);
          rowOf.push(rows.push(feature));
        }
        const title = page.titles[i] ?? '';
        titles.push(title);
        terms.push(Array.from(itemTerms(title, entities), intern));
      }
    },
    finish() {
      if (dimensions === 0) dimensions = space.entityDimensions;
      if (sum.dimensions !== dimensions) sum = new VectorSum(dimensions);
      return finishPlan({ options, sum: sum.totals(), rows: rows ?? new FeatureRows(dimensions), rowOf, titles, terms, clusterOf, clusterIds });
    },
  };
}

/** The whole plan from every page at once. */
export function planRecluster(pages: readonly ReclusterPage[], options: PlanOptions, shared?: SharedVectors): ReclusterPlan {
  const planner = createPlanner(options, shared);
  for (const page of pages) planner.addPage(page);
  return planner.finish();
}

interface Features {
  options: PlanOptions;
  sum: Float64Array;
  rows: FeatureMatrix;
  rowOf: readonly number[];
  titles: string[];
  terms: (readonly string[] | null)[];
  /** Member i's current cluster, an index into `clusterIds`. */
  clusterOf: readonly number[];
  clusterIds: readonly string[];
}

function finishPlan({ options, sum, rows, rowOf, titles, terms, clusterOf, clusterIds }: Features): ReclusterPlan {
  const { dimensions } = rows;
  const mean = centredMean(sum, rows.count);
  // Each cluster's group by index, and the groups in the order of their first member with a vector.
  const byCluster: (Group | undefined)[] = [];
  const order: Group[] = [];
  // Each member's row is centred where it is, and the length it was divided by kept: the raw feature is
  // `length * centred + mean` (`rawMean`), so no member needs its raw and its centred feature at once.
  const lengths = new Float64Array(clusterOf.length);
  const feature = new Float32Array(dimensions);
  const lengthOfRow = rows.centre(mean);
  for (let index = 0; index < clusterOf.length; index++) {
    const row = rowOf[index]!;
    if (row < 0) continue;
    const cluster = clusterOf[index]!;
    let group = byCluster[cluster];
    if (!group) order.push((group = byCluster[cluster] = { id: clusterIds[cluster]!, members: [], absorbed: [] }));
    lengths[index] = lengthOfRow[row]!;
    group.members.push({ row, index });
  }
  const afterMerge = mergeClose(rows, order, options.partition.mergeThreshold, options.partition.splitCoherence);
  const afterSplit = splitIncoherent(rows, afterMerge.groups, options.partition);

  const groups = afterSplit.groups;
  const centroids = new Float32Array(groups.length * dimensions);
  const labelInput = new Map<string, LabelMember[]>();
  const keys: string[] = [];
  let memberTotal = 0;
  groups.forEach((group, c) => {
    // New clusters get their ids when written; labels are keyed by position meanwhile.
    const key = group.id ?? `\u0000new:${c}`;
    keys.push(key);
    const centred = meanOfRows(rows, group.members);
    const length = norm(centred);
    centroids.set(rawMean(rows, group.members, lengths, mean), c * dimensions);
    const towardCentre = rows.dotWith(centred);
    labelInput.set(
      key,
      group.members.map(({ index, row }) => ({ title: titles[index]!, terms: terms[index]!, centrality: length === 0 ? 0 : towardCentre(row) / length })),
    );
    memberTotal += group.members.length;
  });
  const labels = clusterLabels(labelInput);

  const memberItems = new Int32Array(memberTotal);
  const memberClusters = new Int32Array(memberTotal);
  const memberSimilarities = new Float32Array(memberTotal);
  let m = 0;
  const clusters: PlannedCluster[] = groups.map((group, c) => {
    const centroid = centroids.subarray(c * dimensions, (c + 1) * dimensions);
    const length = norm(centroid);
    for (const member of group.members) {
      memberItems[m] = member.index;
      memberClusters[m] = c;
      memberSimilarities[m] = centredCosine(rows.read(member.row, feature), centroid, length, mean);
      m++;
    }
    const wantTitles = options.centralTitlesMinMembers > 0 && group.members.length >= options.centralTitlesMinMembers;
    const centralTitles = wantTitles ? [...labelInput.get(keys[c]!)!].sort((a, b) => b.centrality - a.centrality).slice(0, 10).map((x) => x.title) : [];
    return { id: group.id, labels: labels.get(keys[c]!)!, centralTitles };
  });
  const redirects = groups.flatMap((g, c) => g.absorbed.map((from) => ({ from, to: c })));
  return { clusters, centroids, dimensions, memberItems, memberClusters, memberSimilarities, redirects, merged: afterMerge.merged, split: afterSplit.split };
}

/** The mean of the members' raw features, each rebuilt from its centred feature and length: `length * centred + mean`. */
function rawMean(rows: FeatureMatrix, members: readonly Member[], lengths: Float64Array, mean: CentredMean): Float32Array {
  const { dimensions } = rows;
  const sum = new VectorSum(dimensions);
  const centred = new Float32Array(dimensions);
  const raw = new Float64Array(dimensions);
  for (const m of members) {
    const length = lengths[m.index]!;
    rows.read(m.row, centred);
    for (let i = 0; i < dimensions; i++) raw[i] = length * centred[i]! + (mean.mean[i] ?? 0);
    sum.add(raw);
  }
  return sum.mean(members.length);
}
