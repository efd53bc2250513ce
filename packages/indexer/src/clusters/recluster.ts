import { newId, type Db, type VectorStore } from '@engram/stores';
import { invalidateCentroids } from './centroidCache.js';
import { centre, centredCosine, centredMean, centroidToJson, cosineToCentroid, DEFAULT_FEATURE_SPACE, meanOf, norm, topicFeature, type CentredMean, type FeatureSpace } from './features.js';
import { countItems, loadItemTexts, loadTopicalEntities } from './itemTopics.js';
import { clusterLabels, itemTerms, type ClusterLabels, type LabelMember } from './labels.js';
import { mergeClose, splitIncoherent, type Group, type Member, type PartitionOptions } from './partition.js';

export interface ReclusterOptions extends Partial<PartitionOptions> {
  space?: FeatureSpace;
  /** Writes each cluster's summary from its most central titles when given (an LLM); else extractive. */
  summarize?: (titles: string[]) => Promise<string>;
  /** Smallest cluster worth an LLM summary. */
  summarizeMinMembers?: number;
}

export interface ReclusterResult {
  clusters: number;
  merged: number;
  split: number;
}

export const DEFAULT_PARTITION: PartitionOptions = { mergeThreshold: 0.8, minSplitSize: 8, splitCoherence: 0.7, splitGain: 0.05 };
const VECTOR_BATCH = 500;

interface FinalCluster {
  id: string;
  centroid: Float32Array;
  members: Member[];
  labels: ClusterLabels;
}

/**
 * The periodic re-cluster job for one workspace: recomputes every centroid from its members' current
 * vectors and entities, merges close clusters, splits incoherent ones, drops empty ones and relabels
 * all of them. Members whose vector is missing keep their cluster (or follow it into a merge).
 */
export async function recluster(db: Db, vectors: VectorStore, workspaceId: string, options: ReclusterOptions = {}): Promise<ReclusterResult> {
  const partition: PartitionOptions = { ...DEFAULT_PARTITION, ...options };
  const space = options.space ?? DEFAULT_FEATURE_SPACE;
  const rows = (await db.query<{ item_id: string; cluster_id: string }>('SELECT item_id, cluster_id FROM cluster_members WHERE workspace_id = $1 ORDER BY item_id', [workspaceId])).rows;
  const itemIds = rows.map((r) => r.item_id);
  const embedded = new Map<string, number[]>();
  for (let i = 0; i < itemIds.length; i += VECTOR_BATCH) {
    for (const [id, v] of await vectors.getVectors(workspaceId, itemIds.slice(i, i + VECTOR_BATCH))) embedded.set(id, v);
  }
  const itemCount = await countItems(db, workspaceId);
  const entities = await loadTopicalEntities(db, workspaceId, itemIds, itemCount);
  const dimensions = (embedded.values().next().value?.length ?? 0) + space.entityDimensions;

  // Raw features give the stored centroids (assignment centres them itself); the partition works on
  // centred ones, so that closeness means "about the same thing", not "near the workspace mean".
  const raw = new Map<string, Float32Array>();
  const sum = new Float64Array(dimensions);
  for (const [itemId, vector] of embedded) {
    const feature = topicFeature(vector, entities.get(itemId) ?? [], space);
    raw.set(itemId, feature);
    for (let i = 0; i < dimensions; i++) sum[i]! += feature[i] ?? 0;
  }
  const mean = centredMean(sum, raw.size);
  const byCluster = new Map<string, Group>();
  for (const row of rows) {
    const feature = raw.get(row.item_id);
    if (!feature) continue;
    const group = byCluster.get(row.cluster_id) ?? { id: row.cluster_id, members: [], absorbed: [] };
    group.members.push({ itemId: row.item_id, feature: centre(feature, mean) });
    byCluster.set(row.cluster_id, group);
  }
  const afterMerge = mergeClose([...byCluster.values()], dimensions, partition.mergeThreshold, partition.splitCoherence);
  const afterSplit = splitIncoherent(afterMerge.groups, dimensions, partition);

  const texts = await loadItemTexts(db, [...embedded.keys()]);
  const finals: FinalCluster[] = [];
  const labelInput = new Map<string, LabelMember[]>();
  for (const group of afterSplit.groups) {
    const id = group.id ?? newId('clu');
    const centred = meanOf(group.members.map((m) => m.feature), dimensions);
    const length = norm(centred);
    const centroid = meanOf(group.members.map((m) => raw.get(m.itemId)!), dimensions);
    labelInput.set(
      id,
      group.members.map((m) => {
        const title = texts.get(m.itemId)?.title ?? '';
        return { title, terms: itemTerms(title, entities.get(m.itemId) ?? []), centrality: cosineToCentroid(m.feature, centred, length) };
      }),
    );
    finals.push({ id, centroid, members: group.members, labels: { topic: '', summary: '', keywords: [] } });
  }
  const labels = clusterLabels(labelInput);
  for (const cluster of finals) {
    cluster.labels = labels.get(cluster.id)!;
    if (options.summarize && cluster.members.length >= (options.summarizeMinMembers ?? 3)) {
      const titles = [...labelInput.get(cluster.id)!].sort((a, b) => b.centrality - a.centrality).slice(0, 10).map((m) => m.title);
      cluster.labels.summary = (await options.summarize(titles)).trim() || cluster.labels.summary;
    }
  }

  const redirects = afterSplit.groups.flatMap((g, i) => g.absorbed.map((from) => ({ from, to: finals[i]!.id })));
  const count = await write(db, workspaceId, finals, redirects, mean);
  invalidateCentroids(db, workspaceId);
  return { clusters: count, merged: afterMerge.merged, split: afterSplit.split };
}

async function write(db: Db, workspaceId: string, finals: FinalCluster[], redirects: { from: string; to: string }[], mean: CentredMean): Promise<number> {
  return db.transaction(async (tx) => {
    const clusters = finals.map((c) => ({
      id: c.id,
      topic: c.labels.topic,
      summary: c.labels.summary,
      keywords: c.labels.keywords,
      centroid: JSON.parse(centroidToJson(c.centroid)) as number[],
    }));
    await tx.query(
      `INSERT INTO clusters (id, workspace_id, topic, summary, keywords, member_count, centroid, updated_at)
       SELECT r.id, $1, r.topic, r.summary, ARRAY(SELECT jsonb_array_elements_text(r.keywords)), 0, r.centroid, clock_timestamp()
       FROM jsonb_to_recordset($2::jsonb) AS r(id text, topic text, summary text, keywords jsonb, centroid jsonb)
       ON CONFLICT (id) DO UPDATE SET topic = EXCLUDED.topic, summary = EXCLUDED.summary, keywords = EXCLUDED.keywords,
         centroid = EXCLUDED.centroid, updated_at = clock_timestamp()`,
      [workspaceId, JSON.stringify(clusters)],
    );
    const members = finals.flatMap((c) => {
      const length = norm(c.centroid);
      return c.members.map((m) => ({ item_id: m.itemId, cluster_id: c.id, similarity: centredCosine(m.feature, c.centroid, length, mean) }));
    });
    await tx.query(
      `UPDATE cluster_members m SET cluster_id = r.cluster_id, similarity = r.similarity
       FROM jsonb_to_recordset($1::jsonb) AS r(item_id text, cluster_id text, similarity real) WHERE m.item_id = r.item_id`,
      [JSON.stringify(members)],
    );
    // Members this run did not see (no vector yet, or assigned meanwhile) follow their cluster into a merge.
    await tx.query(
      `UPDATE cluster_members m SET cluster_id = r.to_id
       FROM jsonb_to_recordset($1::jsonb) AS r(from_id text, to_id text) WHERE m.cluster_id = r.from_id`,
      [JSON.stringify(redirects.map((r) => ({ from_id: r.from, to_id: r.to })))],
    );
    await tx.query(
      `UPDATE clusters c SET member_count = (SELECT count(*) FROM cluster_members m WHERE m.cluster_id = c.id) WHERE c.workspace_id = $1`,
      [workspaceId],
    );
    await tx.query('DELETE FROM clusters WHERE workspace_id = $1 AND member_count = 0', [workspaceId]);
    const left = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM clusters WHERE workspace_id = $1', [workspaceId]);
    return left.rows[0]?.n ?? 0;
  });
}
