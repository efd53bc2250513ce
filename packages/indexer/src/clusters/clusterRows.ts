import type { Queryable } from '@engram/stores';
import { parseCentroid } from './centroidCache.js';
import { centroidToJson, TOPICAL_CATEGORIES, type TopicalEntity } from './features.js';
import { toTopicalEntity, type EntityRow } from './itemTopics.js';
import type { ClusterLabels } from './labels.js';

/**
 * The statements of an assignment. The common path costs two round trips: one read of everything
 * about the item, one compare-and-set write. `updated_at::text` is each cluster's version, written
 * with clock_timestamp() so that two writes never share one.
 */
export interface ItemState {
  currentClusterId: string | null;
  clusterCount: number;
  title: string;
  entities: TopicalEntity[];
}

export async function readItemState(db: Queryable, workspaceId: string, itemId: string, itemCount: number): Promise<ItemState> {
  const res = await db.query<{ current: string | null; clusters: number; title: string | null; entities: EntityRow[] | null }>(
    `SELECT (SELECT cluster_id FROM cluster_members WHERE item_id = $2) AS current,
       (SELECT count(*)::int FROM clusters WHERE workspace_id = $1 AND member_count > 0) AS clusters,
       (SELECT coalesce(nullif(title, ''), split_part(snippet, E'\\n', 1)) FROM items WHERE id = $2) AS title,
       (SELECT jsonb_agg(jsonb_build_object('category', e.category, 'key', e.key, 'confidence', em.confidence, 'df', e.item_count))
          FROM entity_mentions em JOIN entities e ON e.id = em.entity_id
          WHERE em.item_id = $2 AND e.category = ANY($3::text[])) AS entities`,
    [workspaceId, itemId, TOPICAL_CATEGORIES],
  );
  const row = res.rows[0];
  return {
    currentClusterId: row?.current ?? null,
    clusterCount: row?.clusters ?? 0,
    title: row?.title ?? '',
    entities: (row?.entities ?? []).map((e) => toTopicalEntity(e, itemCount)),
  };
}

export type JoinOutcome = { kind: 'joined'; version: string } | { kind: 'stale' } | { kind: 'already_member'; version: string };

/** Writes the new running mean only if the cluster is still at `version`, and adds the member in the same statement. */
export async function compareAndJoin(
  db: Queryable,
  input: { workspaceId: string; itemId: string; clusterId: string; version: string; centroid: Float32Array; count: number; similarity: number },
): Promise<JoinOutcome> {
  const res = await db.query<{ version: string; inserted: number }>(
    `WITH upd AS (
       UPDATE clusters SET centroid = $4::jsonb, member_count = $5, updated_at = clock_timestamp()
       WHERE id = $1 AND updated_at::text = $2 RETURNING id, updated_at::text AS version
     ), mem AS (
       INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity)
       SELECT $3, upd.id, $6, $7 FROM upd ON CONFLICT (item_id) DO NOTHING RETURNING item_id
     )
     SELECT upd.version, (SELECT count(*)::int FROM mem) AS inserted FROM upd`,
    [input.clusterId, input.version, input.itemId, centroidToJson(input.centroid), input.count, input.workspaceId, input.similarity],
  );
  const row = res.rows[0];
  if (!row) return { kind: 'stale' };
  return row.inserted === 1 ? { kind: 'joined', version: row.version } : { kind: 'already_member', version: row.version };
}

/**
 * A new cluster with one member, in one statement (foreign keys are checked at its end). Returns the
 * version, or null when the item became a member elsewhere meanwhile: then nothing is written.
 */
export async function insertSeed(
  db: Queryable,
  input: { workspaceId: string; itemId: string; clusterId: string; centroid: Float32Array; labels: ClusterLabels },
): Promise<string | null> {
  const res = await db.query<{ version: string }>(
    `WITH mem AS (
       INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity) VALUES ($1, $2, $3, 1)
       ON CONFLICT (item_id) DO NOTHING RETURNING item_id
     ), created AS (
       INSERT INTO clusters (id, workspace_id, topic, summary, keywords, member_count, centroid, updated_at)
       SELECT $2, $3, $4, $5, $6, 1, $7::jsonb, clock_timestamp() FROM mem RETURNING updated_at::text AS version
     )
     SELECT version FROM created`,
    [input.itemId, input.clusterId, input.workspaceId, input.labels.topic, input.labels.summary, input.labels.keywords, centroidToJson(input.centroid)],
  );
  return res.rows[0]?.version ?? null;
}

export interface LockedCluster {
  centroid: Float32Array;
  count: number;
}

export async function lockCluster(tx: Queryable, clusterId: string): Promise<LockedCluster | null> {
  const res = await tx.query<{ centroid: unknown; member_count: number }>('SELECT centroid, member_count FROM clusters WHERE id = $1 FOR UPDATE', [clusterId]);
  const row = res.rows[0];
  const centroid = row ? parseCentroid(row.centroid) : null;
  return row && centroid ? { centroid, count: row.member_count } : null;
}

export async function writeCluster(tx: Queryable, clusterId: string, centroid: Float32Array, count: number): Promise<string> {
  const res = await tx.query<{ version: string }>(
    'UPDATE clusters SET centroid = $2::jsonb, member_count = $3, updated_at = clock_timestamp() WHERE id = $1 RETURNING updated_at::text AS version',
    [clusterId, centroidToJson(centroid), count],
  );
  return res.rows[0]?.version ?? '';
}

export async function upsertMember(tx: Queryable, workspaceId: string, itemId: string, clusterId: string, similarity: number): Promise<void> {
  await tx.query(
    `INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity) VALUES ($1, $2, $3, $4)
     ON CONFLICT (item_id) DO UPDATE SET cluster_id = EXCLUDED.cluster_id, similarity = EXCLUDED.similarity`,
    [itemId, clusterId, workspaceId, similarity],
  );
}
