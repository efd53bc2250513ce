/**
 * The CPU half of the re-cluster job, as a pure function of plain data: features from vectors and
 * entities, the workspace mean, merge and split, labels and member similarities. It runs in a worker
 * thread (reclusterWorker.ts) or inline; the same input gives the same plan either way. The input comes
 * in pages (as read from the database) with typed arrays, so the worker path can transfer them.
 */
import { centredCosine, centredMean, centreInPlace, cosineToCentroid, meanOf, norm, toTopicalEntity, topicFeature, VectorSum, type CentredMean, type EntityRow, type FeatureSpace } from './features.js';
import { clusterLabels, itemTerms, type ClusterLabels, type LabelMember } from './labels.js';
import { mergeClose, splitIncoherent, type Group, type PartitionOptions } from './partition.js';

/** One page of cluster members, in item id order. */
export interface ReclusterPage {
  itemIds: string[];
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
  /** 1 where member i has a vector. */
  hasVector: Uint8Array;
  /** Topical entity mentions of member i (only needed for members with a vector). */
  mentions: EntityRow[][];
  /** Title of member i (only needed for members with a vector). */
  titles: string[];
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
  /** Member m: index of the item in the input (pages concatenated), its cluster, and its centred similarity to it. */
  memberItems: Int32Array;
  memberClusters: Int32Array;
  memberSimilarities: Float32Array;
  /** Clusters merged away, each with the index of the cluster that absorbed it. */
  redirects: { from: string; to: number }[];
  merged: number;
  split: number;
}

interface IndexedMember {
  itemId: string;
  feature: Float32Array;
  index: number;
}

export interface Planner {
  /** Computes the features of one page (pages in item id order); the page's vectors can go after. */
  addPage(page: ReclusterPage): void;
  finish(): ReclusterPlan;
}

export function createPlanner(options: PlanOptions): Planner {
  const { space } = options;
  let vectorDimensions = 0;
  let dimensions = 0;
  let sum = new VectorSum(0);
  // Raw features give the stored centroids (assignment centres them itself); the partition works on
  // centred ones, so that closeness means "about the same thing", not "near the workspace mean".
  const raw: (Float32Array | null)[] = [];
  const titles: string[] = [];
  const terms: (Set<string> | null)[] = [];
  const itemIds: string[] = [];
  const clusterIds: string[] = [];
  let embedded = 0;
  return {
    addPage(page) {
      if (vectorDimensions === 0 && page.dimensions > 0) {
        vectorDimensions = page.dimensions;
        dimensions = vectorDimensions + space.entityDimensions;
        sum = new VectorSum(dimensions);
      }
      for (let i = 0; i < page.itemIds.length; i++) {
        itemIds.push(page.itemIds[i]!);
        clusterIds.push(page.clusterIds[i]!);
        if (page.hasVector[i] !== 1 || page.dimensions !== vectorDimensions) {
          raw.push(null);
          titles.push('');
          terms.push(null);
          continue;
        }
        const entities = (page.mentions[i] ?? []).map((m) => toTopicalEntity(m, options.itemCount));
        const feature = topicFeature(page.vectors.subarray(i * page.dimensions, (i + 1) * page.dimensions), entities, space);
        raw.push(feature);
        sum.add(feature);
        embedded++;
        const title = page.titles[i] ?? '';
        titles.push(title);
        terms.push(itemTerms(title, entities));
      }
    },
    finish() {
      if (dimensions === 0) dimensions = space.entityDimensions;
      if (sum.dimensions !== dimensions) sum = new VectorSum(dimensions);
      return finishPlan({ options, dimensions, sum: sum.totals(), embedded, raw, titles, terms, itemIds, clusterIds });
    },
  };
}

/** The whole plan from every page at once. */
export function planRecluster(pages: readonly ReclusterPage[], options: PlanOptions): ReclusterPlan {
  const planner = createPlanner(options);
  for (const page of pages) planner.addPage(page);
  return planner.finish();
}

interface Features {
  options: PlanOptions;
  dimensions: number;
  sum: Float64Array;
  embedded: number;
  raw: (Float32Array | null)[];
  titles: string[];
  terms: (Set<string> | null)[];
  itemIds: string[];
  clusterIds: string[];
}

function finishPlan({ options, dimensions, sum, embedded, raw, titles, terms, itemIds, clusterIds }: Features): ReclusterPlan {
  const mean = centredMean(sum, embedded);
  const byCluster = new Map<string, Group>();
  // Each member's feature is centred where it is, and the length it was divided by kept: the raw feature is
  // `length * centred + mean` (`rawMean`). Two features a member were a third of a 100k-item re-cluster's
  // peak memory, and a centred copy of each, freed only as garbage collection caught up, ~300 MB more.
  const lengths = new Float64Array(itemIds.length);
  for (let index = 0; index < itemIds.length; index++) {
    const feature = raw[index];
    if (!feature) continue;
    raw[index] = null;
    const clusterId = clusterIds[index]!;
    const group = byCluster.get(clusterId) ?? { id: clusterId, members: [], absorbed: [] };
    lengths[index] = centreInPlace(feature, mean);
    group.members.push({ itemId: itemIds[index]!, feature, index } as IndexedMember);
    byCluster.set(clusterId, group);
  }
  const afterMerge = mergeClose([...byCluster.values()], dimensions, options.partition.mergeThreshold, options.partition.splitCoherence);
  const afterSplit = splitIncoherent(afterMerge.groups, dimensions, options.partition);

  const groups = afterSplit.groups;
  const centroids = new Float32Array(groups.length * dimensions);
  const labelInput = new Map<string, LabelMember[]>();
  const keys: string[] = [];
  let memberTotal = 0;
  groups.forEach((group, c) => {
    // New clusters get their ids when written; labels are keyed by position meanwhile.
    const key = group.id ?? `\u0000new:${c}`;
    keys.push(key);
    const centred = meanOf(group.members.map((m) => m.feature), dimensions);
    const length = norm(centred);
    centroids.set(rawMean(group.members as IndexedMember[], lengths, mean, dimensions), c * dimensions);
    labelInput.set(
      key,
      group.members.map((m) => {
        const index = (m as IndexedMember).index;
        return { title: titles[index]!, terms: terms[index]!, centrality: cosineToCentroid(m.feature, centred, length) };
      }),
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
      memberItems[m] = (member as IndexedMember).index;
      memberClusters[m] = c;
      memberSimilarities[m] = centredCosine(member.feature, centroid, length, mean);
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
function rawMean(members: readonly IndexedMember[], lengths: Float64Array, mean: CentredMean, dimensions: number): Float32Array {
  const sum = new VectorSum(dimensions);
  const raw = new Float64Array(dimensions);
  for (const m of members) {
    const length = lengths[m.index]!;
    for (let i = 0; i < dimensions; i++) raw[i] = length * m.feature[i]! + (mean.mean[i] ?? 0);
    sum.add(raw);
  }
  const totals = sum.totals();
  const out = new Float32Array(dimensions);
  if (members.length > 0) for (let i = 0; i < dimensions; i++) out[i] = totals[i]! / members.length;
  return out;
}
