/**
 * Reads behind find-similar: the input item, the entities and clusters it shares with candidates, and the
 * links that make two items the same change (`commit_pr`) or directly related (every other edge type).
 */
import type { Queryable } from '../db.js';

/** The item a find-similar request names: by id, or the first (by id) indexed under a URL. Null when none. */
export async function findItemId(db: Queryable, workspaceId: string, by: { id: string } | { url: string }): Promise<string | null> {
  const res =
    'id' in by
      ? await db.query<{ id: string }>('SELECT id FROM items WHERE workspace_id = $1 AND id = $2', [workspaceId, by.id])
      : await db.query<{ id: string }>('SELECT id FROM items WHERE workspace_id = $1 AND url = $2 ORDER BY id LIMIT 1', [workspaceId, by.url]);
  return res.rows[0]?.id ?? null;
}

/** `category:key` of every non-person entity each item mentions (items with none are absent). */
export async function entityKeysOf(db: Queryable, itemIds: readonly string[]): Promise<Map<string, Set<string>>> {
  const res = await db.query<{ item_id: string; k: string }>(
    `SELECT m.item_id, e.category || ':' || e.key AS k FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE m.item_id = ANY($1::text[]) AND e.category <> 'person'`,
    [itemIds],
  );
  const out = new Map<string, Set<string>>();
  for (const r of res.rows) out.set(r.item_id, (out.get(r.item_id) ?? new Set()).add(r.k));
  return out;
}

/** The topic cluster of each item (an item is in at most one; unclustered items are absent). */
export async function clusterIdsOf(db: Queryable, itemIds: readonly string[]): Promise<Map<string, string>> {
  const res = await db.query<{ item_id: string; cluster_id: string }>('SELECT item_id, cluster_id FROM cluster_members WHERE item_id = ANY($1::text[])', [itemIds]);
  return new Map(res.rows.map((r) => [r.item_id, r.cluster_id]));
}

/** A cluster's topic and size, or null when it no longer exists. */
export async function clusterSummary(db: Queryable, clusterId: string): Promise<{ topic: string | null; memberCount: number } | null> {
  const res = await db.query<{ topic: string | null; member_count: number }>('SELECT topic, member_count FROM clusters WHERE id = $1', [clusterId]);
  const row = res.rows[0];
  return row ? { topic: row.topic, memberCount: row.member_count } : null;
}

/**
 * Items at the other end of `itemId`'s edges. `sameChange`: only `commit_pr` edges (a pull request and its
 * squash commit are one change); otherwise every other edge type (a revert, a reference, a fix).
 */
export async function linkedItemIds(db: Queryable, itemId: string, kind: 'sameChange' | 'related'): Promise<string[]> {
  const res = await db.query<{ other: string }>(
    kind === 'sameChange'
      ? `SELECT CASE WHEN source_id = $1 THEN target_id ELSE source_id END AS other FROM edges WHERE type = 'commit_pr' AND (source_id = $1 OR target_id = $1)`
      : `SELECT CASE WHEN source_id = $1 THEN target_id ELSE source_id END AS other FROM edges WHERE (source_id = $1 OR target_id = $1) AND type <> 'commit_pr'`,
    [itemId],
  );
  return res.rows.map((r) => r.other);
}
