import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db.js';
import { pgNumberArray } from '../readModels/search/pgArrays.js';
import { float4Hex } from '../vector/binary.js';

/**
 * Topic clusters: one row per cluster (labels, running-mean centroid, member count) and one membership
 * row per item. Incremental assignment (`assignCluster` in @engram/indexer) writes with compare-and-set
 * on `updated_at::text`, the cluster's version (`nextVersion`). The re-cluster job stages its result in
 * slices and swaps it in with `applyReclusterStage`.
 */

/**
 * A cluster's next version: the clock, and always past the version it replaces. PGlite's clock counts
 * milliseconds, so two writes within one (a join right after a seed) shared a version and a stale
 * compare-and-set passed.
 */
const nextVersion = (table = 'clusters'): string => `greatest(clock_timestamp(), ${table}.updated_at + interval '1 microsecond')`;

/**
 * Centroids are stored as big-endian float4 bytes (2 KB for 512 dimensions) and travel as hex text
 * (`decode($n, 'hex')` in, `encode(centroid, 'hex')` out): both drivers' own bytea codecs go byte by byte
 * in JavaScript, Node's hex codec is native. Values are rounded to 5 decimals first, as the JSON arrays
 * they replaced were (migration 013 converts those exactly), so a centroid means the same whichever
 * way it was written.
 */
export function centroidHex(centroid: ArrayLike<number>): string {
  // A loop, not `Array.from(centroid, ...)`: that walks a typed array through its iterator, an object a value
  // (7% of what an import allocated on the event loop at 100k items).
  const rounded = new Float64Array(centroid.length);
  for (let i = 0; i < centroid.length; i++) rounded[i] = Math.round(centroid[i]! * 1e5) / 1e5;
  return float4Hex(rounded);
}

/** A centroid read as `encode(centroid, 'hex')`; null when there is none. */
export const parseCentroid = (hex: string | null | undefined): Float32Array | null => {
  if (typeof hex !== 'string' || hex.length === 0 || hex.length % 8 !== 0) return null;
  const bytes = Buffer.from(hex, 'hex');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength >> 2);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i);
  return out;
};

/** The column read back for `parseCentroid`. */
export const CENTROID_HEX = "encode(centroid, 'hex')";

export interface ClusterCentroidRow {
  id: string;
  /** Null when the stored value is not an array. */
  centroid: Float32Array | null;
  memberCount: number;
  version: string;
}

/** Every non-empty cluster of a workspace with its centroid and version. */
export async function listClusterCentroids(db: Queryable, workspaceId: string): Promise<ClusterCentroidRow[]> {
  const res = await db.query<{ id: string; centroid: string | null; member_count: number; version: string }>(
    `SELECT id, ${CENTROID_HEX} AS centroid, member_count, updated_at::text AS version FROM clusters WHERE workspace_id = $1 AND member_count > 0`,
    [workspaceId],
  );
  return res.rows.map((r) => ({ id: r.id, centroid: parseCentroid(r.centroid), memberCount: r.member_count, version: r.version }));
}

/** Number of items in the workspace (the N of the entity IDF the clusters weigh by). */
export async function countWorkspaceItems(db: Queryable, workspaceId: string): Promise<number> {
  const res = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM items WHERE workspace_id = $1', [workspaceId]);
  return res.rows[0]?.n ?? 0;
}

export interface MentionRow {
  category: string;
  key: string;
  confidence: number;
  /** Items of the workspace mentioning the entity. */
  df: number;
}

export interface ItemClusterState {
  currentClusterId: string | null;
  /** Non-empty clusters of the workspace. */
  clusterCount: number;
  /** The title, else the snippet's first line. */
  title: string;
  mentions: MentionRow[];
}

/** Everything an assignment needs about one item, in one round trip; `categories` filters its entities. */
export async function readItemClusterState(db: Queryable, workspaceId: string, itemId: string, categories: readonly string[]): Promise<ItemClusterState> {
  const res = await db.query<{ current: string | null; clusters: number; title: string | null; entities: MentionRow[] | null }>(
    `SELECT (SELECT cluster_id FROM cluster_members WHERE item_id = $2) AS current,
       (SELECT count(*)::int FROM clusters WHERE workspace_id = $1 AND member_count > 0) AS clusters,
       (SELECT coalesce(nullif(title, ''), split_part(snippet, E'\\n', 1)) FROM items WHERE id = $2) AS title,
       (SELECT jsonb_agg(jsonb_build_object('category', e.category, 'key', e.key, 'confidence', em.confidence, 'df', e.item_count))
          FROM entity_mentions em JOIN entities e ON e.id = em.entity_id
          WHERE em.item_id = $2 AND e.category = ANY($3::text[])) AS entities`,
    [workspaceId, itemId, categories],
  );
  const row = res.rows[0];
  return { currentClusterId: row?.current ?? null, clusterCount: row?.clusters ?? 0, title: row?.title ?? '', mentions: row?.entities ?? [] };
}

/**
 * The mentions of the given items, of entities in `categories`, each item's in (category, key) order.
 * Two reads: each item's entity ids and confidences as arrays, then the distinct entities once each, in
 * (category, key) order. A page of 500 items names ~6k mentions but far fewer entities (paths, labels and
 * languages recur): a lookup per mention (a join, or `LATERAL` by id) cost ~25 us a mention on PGlite,
 * a fifth of a 30k import's statement time.
 */
async function mentionsByItem(db: Queryable, itemIds: readonly string[], categories: readonly string[]): Promise<Map<string, MentionRow[]>> {
  const out = new Map<string, MentionRow[]>();
  const mentions = await db.query<{ item_id: string; entity_ids: string; confidences: string }>(
    'SELECT item_id, array_agg(entity_id)::text AS entity_ids, array_agg(confidence)::text AS confidences FROM entity_mentions WHERE item_id = ANY($1::text[]) GROUP BY item_id',
    [itemIds],
  );
  if (mentions.rows.length === 0) return out;
  const parsed = mentions.rows.map((r) => ({ itemId: r.item_id, entityIds: pgNumberArray(r.entity_ids), confidences: pgNumberArray(r.confidences) }));
  const entityIds = [...new Set(parsed.flatMap((m) => m.entityIds))];
  const entities = await db.query<{ id: string | number; category: string; key: string; df: string | number }>(
    'SELECT id, category, key, item_count AS df FROM entities WHERE id = ANY($1::bigint[]) AND category = ANY($2::text[]) ORDER BY category, key',
    [entityIds, categories],
  );
  // The database's order (its collation) ranks the entities; each item's mentions follow it.
  const entityOf = new Map(entities.rows.map((e, rank) => [String(e.id), { rank, category: e.category, key: e.key, df: Number(e.df) }]));
  for (const { itemId, entityIds: ids, confidences } of parsed) {
    const named = ids.flatMap((id, i) => {
      const e = entityOf.get(id);
      return e ? [{ e, confidence: Number(confidences[i]) }] : [];
    });
    if (named.length === 0) continue;
    named.sort((a, b) => a.e.rank - b.e.rank);
    out.set(itemId, named.map(({ e, confidence }) => ({ category: e.category, key: e.key, confidence, df: e.df })));
  }
  return out;
}

/**
 * `readItemClusterState` for many items of a workspace in two statements, without the cluster count (a batch
 * plans against the centroids it holds, and a write that lost a race says so; counting 4,000 clusters read
 * 3,400 heap pages, 6-14 ms a batch of the embedded database's thread at 100k items, 0.4 s when not cached);
 * items that do not exist are absent.
 */
export async function readItemClusterStates(db: Queryable, workspaceId: string, itemIds: readonly string[], categories: readonly string[]): Promise<Map<string, Omit<ItemClusterState, 'clusterCount'>>> {
  if (itemIds.length === 0) return new Map();
  const res = await db.query<{ id: string; current: string | null; title: string | null }>(
    `SELECT i.id, cm.cluster_id AS current,
       coalesce(nullif(i.title, ''), split_part(i.snippet, E'\\n', 1)) AS title
     FROM items i LEFT JOIN cluster_members cm ON cm.item_id = i.id
     WHERE i.workspace_id = $1 AND i.id = ANY($2::text[])`,
    [workspaceId, itemIds],
  );
  const mentions = res.rows.length > 0 ? await mentionsByItem(db, itemIds, categories) : new Map<string, MentionRow[]>();
  return new Map(res.rows.map((r) => [r.id, { currentClusterId: r.current, title: r.title ?? '', mentions: mentions.get(r.id) ?? [] }]));
}

export type JoinOutcome = { kind: 'joined'; version: string } | { kind: 'stale' } | { kind: 'already_member'; version: string };

/** Writes the new running mean only if the cluster is still at `version`, and adds the member in the same statement. */
export async function compareAndJoin(
  db: Queryable,
  input: { workspaceId: string; itemId: string; clusterId: string; version: string; centroid: ArrayLike<number>; count: number; similarity: number },
): Promise<JoinOutcome> {
  const res = await db.query<{ version: string; inserted: number }>(
    `WITH upd AS (
       UPDATE clusters SET centroid = decode($4, 'hex'), member_count = $5, updated_at = ${nextVersion()}
       WHERE id = $1 AND updated_at::text = $2 RETURNING id, updated_at::text AS version
     ), mem AS (
       INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity)
       SELECT $3, upd.id, $6, $7 FROM upd ON CONFLICT (item_id) DO NOTHING RETURNING item_id
     )
     SELECT upd.version, (SELECT count(*)::int FROM mem) AS inserted FROM upd`,
    [input.clusterId, input.version, input.itemId, centroidHex(input.centroid), input.count, input.workspaceId, input.similarity],
  );
  const row = res.rows[0];
  if (!row) return { kind: 'stale' };
  return row.inserted === 1 ? { kind: 'joined', version: row.version } : { kind: 'already_member', version: row.version };
}

export interface ClusterBatch {
  workspaceId: string;
  /** Existing clusters, each written once with its final centroid: compare-and-set on `version`. */
  updates: { clusterId: string; version: string; centroid: ArrayLike<number>; count: number }[];
  /** Clusters created by this batch, with the members it gave them. */
  seeds: { clusterId: string; centroid: ArrayLike<number>; count: number; labels: ClusterLabelsRow }[];
  /** Items that had no cluster. */
  members: { itemId: string; clusterId: string; similarity: number }[];
}

class BatchLost extends Error {}

/**
 * A batch of assignments in one transaction of three statements. All or nothing: when a cluster moved
 * past its version or an item gained a cluster meanwhile (another writer), nothing is written and the
 * answer is null; otherwise the new version of every updated and created cluster.
 */
export async function writeClusterBatch(db: Db, batch: ClusterBatch): Promise<Map<string, string> | null> {
  try {
    return await db.transaction(async (tx) => {
      const versions = new Map<string, string>();
      if (batch.updates.length > 0) {
        const updated = await tx.query<{ id: string; version: string }>(
          `UPDATE clusters c SET centroid = decode(u.centroid, 'hex'), member_count = u.count, updated_at = ${nextVersion('c')}
           FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS u(id, version, centroid, count)
           WHERE c.id = u.id AND c.updated_at::text = u.version
           RETURNING c.id, c.updated_at::text AS version`,
          [batch.updates.map((u) => u.clusterId), batch.updates.map((u) => u.version), batch.updates.map((u) => centroidHex(u.centroid)), batch.updates.map((u) => u.count)],
        );
        if (updated.rows.length !== batch.updates.length) throw new BatchLost();
        for (const r of updated.rows) versions.set(r.id, r.version);
      }
      if (batch.seeds.length > 0) {
        const created = await tx.query<{ id: string; version: string }>(
          `INSERT INTO clusters (id, workspace_id, topic, summary, keywords, member_count, centroid, updated_at)
           SELECT s.id, $1, s.topic, s.summary, ARRAY(SELECT jsonb_array_elements_text(s.keywords::jsonb)), s.count, decode(s.centroid, 'hex'), clock_timestamp()
           FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[]) AS s(id, topic, summary, keywords, count, centroid)
           RETURNING id, updated_at::text AS version`,
          [
            batch.workspaceId,
            batch.seeds.map((c) => c.clusterId),
            batch.seeds.map((c) => c.labels.topic),
            batch.seeds.map((c) => c.labels.summary),
            batch.seeds.map((c) => JSON.stringify(c.labels.keywords)),
            batch.seeds.map((c) => c.count),
            batch.seeds.map((c) => centroidHex(c.centroid)),
          ],
        );
        for (const r of created.rows) versions.set(r.id, r.version);
      }
      if (batch.members.length > 0) {
        const inserted = await tx.query(
          `INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity)
           SELECT m.item_id, m.cluster_id, $1, m.similarity FROM unnest($2::text[], $3::text[], $4::real[]) AS m(item_id, cluster_id, similarity)
           ON CONFLICT (item_id) DO NOTHING RETURNING item_id`,
          [batch.workspaceId, batch.members.map((m) => m.itemId), batch.members.map((m) => m.clusterId), batch.members.map((m) => m.similarity)],
        );
        if (inserted.rows.length !== batch.members.length) throw new BatchLost();
      }
      return versions;
    });
  } catch (error) {
    if (error instanceof BatchLost) return null;
    throw error;
  }
}

export interface ClusterLabelsRow {
  topic: string;
  summary: string;
  keywords: string[];
}

/**
 * A new cluster with one member, in one statement (foreign keys are checked at its end). Returns the
 * version, or null when the item became a member elsewhere meanwhile: then nothing is written.
 */
export async function insertSeedCluster(
  db: Queryable,
  input: { workspaceId: string; itemId: string; clusterId: string; centroid: ArrayLike<number>; labels: ClusterLabelsRow },
): Promise<string | null> {
  const res = await db.query<{ version: string }>(
    `WITH mem AS (
       INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity) VALUES ($1, $2, $3, 1)
       ON CONFLICT (item_id) DO NOTHING RETURNING item_id
     ), created AS (
       INSERT INTO clusters (id, workspace_id, topic, summary, keywords, member_count, centroid, updated_at)
       SELECT $2, $3, $4, $5, $6, 1, decode($7, 'hex'), clock_timestamp() FROM mem RETURNING updated_at::text AS version
     )
     SELECT version FROM created`,
    [input.itemId, input.clusterId, input.workspaceId, input.labels.topic, input.labels.summary, input.labels.keywords, centroidHex(input.centroid)],
  );
  return res.rows[0]?.version ?? null;
}

export interface LockedCluster {
  centroid: Float32Array;
  count: number;
}

/** Reads a cluster under a row lock (inside a transaction); null when it is gone. */
export async function lockCluster(tx: Queryable, clusterId: string): Promise<LockedCluster | null> {
  const res = await tx.query<{ centroid: string | null; member_count: number }>(`SELECT ${CENTROID_HEX} AS centroid, member_count FROM clusters WHERE id = $1 FOR UPDATE`, [clusterId]);
  const row = res.rows[0];
  const centroid = row ? parseCentroid(row.centroid) : null;
  return row && centroid ? { centroid, count: row.member_count } : null;
}

/** Writes a cluster's centroid and count; returns its new version. */
export async function writeClusterCentroid(tx: Queryable, clusterId: string, centroid: ArrayLike<number>, count: number): Promise<string> {
  const res = await tx.query<{ version: string }>(
    `UPDATE clusters SET centroid = decode($2, 'hex'), member_count = $3, updated_at = ${nextVersion()} WHERE id = $1 RETURNING updated_at::text AS version`,
    [clusterId, centroidHex(centroid), count],
  );
  return res.rows[0]?.version ?? '';
}

export async function deleteCluster(tx: Queryable, clusterId: string): Promise<void> {
  await tx.query('DELETE FROM clusters WHERE id = $1', [clusterId]);
}

export async function upsertClusterMember(tx: Queryable, workspaceId: string, itemId: string, clusterId: string, similarity: number): Promise<void> {
  await tx.query(
    `INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity) VALUES ($1, $2, $3, $4)
     ON CONFLICT (item_id) DO UPDATE SET cluster_id = EXCLUDED.cluster_id, similarity = EXCLUDED.similarity`,
    [itemId, clusterId, workspaceId, similarity],
  );
}

// ---- Reads of the re-cluster job, in pages -------------------------------------------------------

export interface ClusterMemberRow {
  itemId: string;
  clusterId: string;
}

/** Members of a workspace in item id order, `limit` at a time after `afterItemId` ('' for the first page). */
export async function listClusterMembersPage(db: Queryable, workspaceId: string, afterItemId: string, limit: number): Promise<ClusterMemberRow[]> {
  const res = await db.query<{ item_id: string; cluster_id: string }>(
    'SELECT item_id, cluster_id FROM cluster_members WHERE workspace_id = $1 AND item_id > $2 ORDER BY item_id LIMIT $3',
    [workspaceId, afterItemId, limit],
  );
  return res.rows.map((r) => ({ itemId: r.item_id, clusterId: r.cluster_id }));
}

/** Items per statement of `listItemMentions`: a prolific author's thousands of items in one read held the embedded database for half a second. */
const MENTIONS_PAGE = 500;

/** The entities of the given categories that each item mentions (items mentioning none are absent). */
export async function listItemMentions(db: Queryable, itemIds: readonly string[], categories: readonly string[]): Promise<Map<string, MentionRow[]>> {
  const out = new Map<string, MentionRow[]>();
  for (let i = 0; i < itemIds.length; i += MENTIONS_PAGE) {
    for (const [itemId, rows] of await mentionsByItem(db, itemIds.slice(i, i + MENTIONS_PAGE), categories)) out.set(itemId, rows);
  }
  return out;
}

export interface ItemTitleRow {
  /** The title, else the snippet's first line, trimmed. */
  title: string;
  snippet: string;
}

/** Titles of items, for labels and summaries. */
export async function listItemTitles(db: Queryable, itemIds: readonly string[]): Promise<Map<string, ItemTitleRow>> {
  const out = new Map<string, ItemTitleRow>();
  if (itemIds.length === 0) return out;
  const res = await db.query<{ id: string; title: string | null; snippet: string }>('SELECT id, title, snippet FROM items WHERE id = ANY($1::text[])', [itemIds]);
  for (const row of res.rows) out.set(row.id, { title: (row.title ?? '').trim() || row.snippet.split('\n')[0]?.trim() || '', snippet: row.snippet });
  return out;
}

// ---- The re-cluster's result: staged in slices, swapped in at once --------------------------------

export interface StagedCluster extends ClusterLabelsRow {
  id: string;
  /** Stored as float4 (see `centroidHex`). */
  centroid: ArrayLike<number>;
}

export interface StagedMember {
  itemId: string;
  clusterId: string;
  similarity: number;
}

/** A fresh run id for one re-cluster's staging rows. */
export const newReclusterRun = (): string => `rc_${randomBytes(9).toString('base64url')}`;

/** Adds clusters to a run's staging rows (one statement: the caller slices). */
export async function stageClusters(db: Queryable, runId: string, workspaceId: string, clusters: readonly StagedCluster[]): Promise<void> {
  if (clusters.length === 0) return;
  await db.query(
    `INSERT INTO cluster_stage (run_id, workspace_id, id, topic, summary, keywords, centroid)
     SELECT $1, $2, r.id, r.topic, r.summary, ARRAY(SELECT jsonb_array_elements_text(r.keywords)), decode(r.centroid, 'hex')
     FROM jsonb_to_recordset($3::jsonb) AS r(id text, topic text, summary text, keywords jsonb, centroid text)`,
    [runId, workspaceId, JSON.stringify(clusters.map((c) => ({ id: c.id, topic: c.topic, summary: c.summary, keywords: c.keywords, centroid: centroidHex(c.centroid) })))],
  );
}

/** Adds memberships to a run's staging rows (one statement: the caller slices). */
export async function stageClusterMembers(db: Queryable, runId: string, workspaceId: string, members: readonly StagedMember[]): Promise<void> {
  if (members.length === 0) return;
  await db.query(
    `INSERT INTO cluster_member_stage (run_id, workspace_id, item_id, cluster_id, similarity)
     SELECT $1, $2, i, c, s FROM unnest($3::text[], $4::text[], $5::real[]) AS t(i, c, s)`,
    [runId, workspaceId, members.map((m) => m.itemId), members.map((m) => m.clusterId), members.map((m) => m.similarity)],
  );
}

export interface ClusterRedirect {
  /** A cluster merged away by the run. */
  from: string;
  to: string;
}

/**
 * Moves a staged run into the live tables in one transaction (readers see the clusters before the run
 * or after it, never half): upserts the staged clusters, moves staged members, sends members the run
 * did not see (no vector yet, or assigned meanwhile) from a merged-away cluster into the one that
 * absorbed it, recounts members, drops empty clusters and the run's staging rows. `between` runs
 * between the statements (a yield to the event loop); returns the clusters the workspace has after.
 */
export async function applyReclusterStage(
  db: Db,
  runId: string,
  workspaceId: string,
  redirects: readonly ClusterRedirect[],
  between: () => Promise<void> = async () => undefined,
): Promise<number> {
  const left = await db.transaction(async (tx) => {
    for (let after = ''; ; ) {
      const res = await tx.query<{ last: string | null; n: number }>(
        `WITH s AS (SELECT * FROM cluster_stage WHERE run_id = $1 AND id > $2 ORDER BY id LIMIT $3),
         up AS (
           INSERT INTO clusters (id, workspace_id, topic, summary, keywords, member_count, centroid, updated_at)
           SELECT s.id, s.workspace_id, s.topic, s.summary, s.keywords, 0, s.centroid, clock_timestamp() FROM s
           ON CONFLICT (id) DO UPDATE SET topic = EXCLUDED.topic, summary = EXCLUDED.summary, keywords = EXCLUDED.keywords,
             centroid = EXCLUDED.centroid, updated_at = ${nextVersion()}
         )
         SELECT max(id) AS last, count(*)::int AS n FROM s`,
        [runId, after, APPLY_CLUSTERS],
      );
      await between();
      const { last, n } = res.rows[0] ?? { last: null, n: 0 };
      if (last === null || n < APPLY_CLUSTERS) break;
      after = last;
    }
    for (let after = ''; ; ) {
      const res = await tx.query<{ last: string | null; n: number }>(
        `WITH s AS (SELECT * FROM cluster_member_stage WHERE run_id = $1 AND item_id > $2 ORDER BY item_id LIMIT $3),
         moved AS (
           UPDATE cluster_members m SET cluster_id = s.cluster_id, similarity = s.similarity FROM s
           WHERE m.item_id = s.item_id AND m.workspace_id = s.workspace_id
             AND (m.cluster_id IS DISTINCT FROM s.cluster_id OR m.similarity IS DISTINCT FROM s.similarity)
         )
         SELECT max(item_id) AS last, count(*)::int AS n FROM s`,
        [runId, after, APPLY_MEMBERS],
      );
      await between();
      const { last, n } = res.rows[0] ?? { last: null, n: 0 };
      if (last === null || n < APPLY_MEMBERS) break;
      after = last;
    }
    if (redirects.length > 0) {
      await tx.query(
        `UPDATE cluster_members m SET cluster_id = r.to_id
         FROM unnest($1::text[], $2::text[]) AS r(from_id, to_id) WHERE m.cluster_id = r.from_id`,
        [redirects.map((r) => r.from), redirects.map((r) => r.to)],
      );
    }
    await tx.query(
      `UPDATE clusters c SET member_count = n.members
       FROM (SELECT c2.id, count(m.item_id)::int AS members FROM clusters c2 LEFT JOIN cluster_members m ON m.cluster_id = c2.id
             WHERE c2.workspace_id = $1 GROUP BY c2.id) n
       WHERE c.id = n.id AND c.member_count <> n.members`,
      [workspaceId],
    );
    await between();
    await tx.query('DELETE FROM clusters WHERE workspace_id = $1 AND member_count = 0', [workspaceId]);
    const count = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM clusters WHERE workspace_id = $1', [workspaceId]);
    return count.rows[0]?.n ?? 0;
  });
  await dropReclusterStage(db, runId, between);
  return left;
}

/** Rows each statement of the swap moves (a cluster row carries a centroid of about 7 KB). */
const APPLY_CLUSTERS = 100;
const APPLY_MEMBERS = 2_000;

/** Drops a run's staging rows (after its swap, or when it failed), a slice per statement with `between` after each. */
export async function dropReclusterStage(db: Queryable, runId: string, between: () => Promise<void> = async () => undefined): Promise<void> {
  for (const table of ['cluster_member_stage', 'cluster_stage']) {
    for (;;) {
      const res = await db.query(`DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE run_id = $1 LIMIT $2))`, [runId, APPLY_MEMBERS]);
      if (res.rowCount < APPLY_MEMBERS) break;
      await between();
    }
  }
}

/** Drops staging rows a crashed run of this workspace left behind (older than `olderThanMs`). */
export async function dropStaleReclusterStages(db: Queryable, workspaceId: string, olderThanMs: number): Promise<number> {
  const runs = await db.query<{ run_id: string }>(
    `SELECT DISTINCT run_id FROM cluster_stage WHERE workspace_id = $1 AND staged_at < now() - make_interval(secs => $2::double precision / 1000)`,
    [workspaceId, olderThanMs],
  );
  for (const { run_id: runId } of runs.rows) await dropReclusterStage(db, runId);
  return runs.rows.length;
}
