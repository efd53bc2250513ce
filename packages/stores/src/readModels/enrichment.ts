/** Reads that dress a page of search results: entities per item, the clusters and people behind them. */
import { isAutomationName } from '@engram/contracts';
import type { Queryable } from '../db.js';

export interface ClusterContext {
  id: string;
  topic: string | null;
  summary: string | null;
  keywords: string[];
  memberCount: number;
}

export interface ActorContext {
  id: string;
  displayName: string;
  expertiseDomains: string[];
}

/** Entities of each item, most confident first (for `entities` on results). */
export async function itemEntities(db: Queryable, ids: string[], perItem = 8): Promise<Map<string, { key: string; category: string }[]>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<{ item_id: string; key: string; category: string }>(
    `SELECT item_id, key, category FROM (
       SELECT m.item_id, e.key, e.category,
              row_number() OVER (PARTITION BY m.item_id ORDER BY m.confidence DESC, e.item_count ASC, e.key) AS rn
       FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE m.item_id = ANY($1::text[])) t
     WHERE rn <= $2`,
    [ids, perItem],
  );
  const out = new Map<string, { key: string; category: string }[]>();
  for (const r of res.rows) out.set(r.item_id, [...(out.get(r.item_id) ?? []), { key: r.key, category: r.category }]);
  return out;
}

/** Clusters of the given items (first = the cluster of the best-ranked item), plus any extra cluster ids. */
export async function clustersOf(db: Queryable, itemIds: string[], extraClusterIds: string[] = [], limit = 5): Promise<ClusterContext[]> {
  const res = await db.query<{ id: string; topic: string | null; summary: string | null; keywords: string[]; member_count: number; item_id: string | null }>(
    `SELECT c.id, c.topic, c.summary, c.keywords, c.member_count, m.item_id
     FROM clusters c LEFT JOIN cluster_members m ON m.cluster_id = c.id AND m.item_id = ANY($1::text[])
     WHERE c.id IN (SELECT cluster_id FROM cluster_members WHERE item_id = ANY($1::text[])) OR c.id = ANY($2::text[])`,
    [itemIds, extraClusterIds],
  );
  const rank = (r: { item_id: string | null; id: string }) => {
    const i = r.item_id ? itemIds.indexOf(r.item_id) : -1;
    return i >= 0 ? i : itemIds.length + extraClusterIds.indexOf(r.id);
  };
  const best = new Map<string, { row: (typeof res.rows)[number]; rank: number }>();
  for (const r of res.rows) {
    const k = rank(r);
    if (!best.has(r.id) || k < best.get(r.id)!.rank) best.set(r.id, { row: r, rank: k });
  }
  return [...best.values()]
    .sort((a, b) => a.rank - b.rank)
    .slice(0, limit)
    .map(({ row }) => ({ id: row.id, topic: row.topic, summary: row.summary, keywords: row.keywords, memberCount: row.member_count }));
}

/**
 * People behind the given items (authors first) and the actor path's matches; bots excluded (flagged by
 * the indexer, or a display name that says automation, `isAutomationName`).
 */
export async function actorsOf(db: Queryable, itemIds: string[], extraActorIds: string[] = [], limit = 5): Promise<ActorContext[]> {
  const res = await db.query<{ id: string; display_name: string; expertise_domains: string[]; score: number }>(
    `SELECT a.id, a.display_name, a.expertise_domains,
            sum(CASE ia.role WHEN 'author' THEN 3 WHEN 'reviewer' THEN 2 ELSE 1 END) + CASE WHEN a.id = ANY($2::text[]) THEN 5 ELSE 0 END AS score
     FROM actors a LEFT JOIN item_actors ia ON ia.actor_id = a.id AND ia.item_id = ANY($1::text[])
     WHERE (ia.item_id IS NOT NULL OR a.id = ANY($2::text[])) AND NOT a.is_bot
     GROUP BY a.id ORDER BY score DESC, a.item_count DESC, a.id`,
    [itemIds, extraActorIds],
  );
  return res.rows
    .filter((r) => !isAutomationName(r.display_name))
    .slice(0, limit)
    .map((r) => ({ id: r.id, displayName: r.display_name, expertiseDomains: r.expertise_domains }));
}
