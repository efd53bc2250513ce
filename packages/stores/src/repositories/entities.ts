import type { Queryable } from '../db.js';

export interface EntityMention {
  category: string;
  key: string;
  confidence: number;
}

/**
 * Replaces an item's entity mentions and keeps `entities.item_count` in step (+1 for entities it now
 * mentions, -1 for those it no longer does; an entity no item mentions is removed).
 */
export async function replaceItemEntities(tx: Queryable, input: { workspaceId: string; itemId: string; entities: readonly EntityMention[] }): Promise<void> {
  const byId = new Map<string, EntityMention>();
  const unique = new Map<string, EntityMention>();
  for (const e of input.entities) {
    const id = `${e.category}\u0000${e.key}`;
    const seen = unique.get(id);
    if (!seen || seen.confidence < e.confidence) unique.set(id, e);
  }
  const before = await tx.query<{ entity_id: string }>('SELECT entity_id FROM entity_mentions WHERE item_id = $1', [input.itemId]);
  const old = new Set(before.rows.map((r) => String(r.entity_id)));
  const list = [...unique.values()].sort((a, b) => (a.category + a.key < b.category + b.key ? -1 : 1));
  if (list.length > 0) {
    const res = await tx.query<{ id: string; category: string; key: string }>(
      `INSERT INTO entities (workspace_id, category, key)
       SELECT $1, e.category, e.key FROM unnest($2::text[], $3::text[]) AS e(category, key)
       ON CONFLICT (workspace_id, category, key) DO UPDATE SET key = EXCLUDED.key
       RETURNING id, category, key`,
      [input.workspaceId, list.map((e) => e.category), list.map((e) => e.key)],
    );
    for (const r of res.rows) {
      const e = unique.get(`${r.category}\u0000${r.key}`);
      if (e) byId.set(String(r.id), e);
    }
  }
  await tx.query('DELETE FROM entity_mentions WHERE item_id = $1', [input.itemId]);
  const ids = [...byId.keys()];
  if (ids.length > 0) {
    await tx.query(
      `INSERT INTO entity_mentions (entity_id, item_id, workspace_id, confidence)
       SELECT m.id, $1, $2, m.confidence FROM unnest($3::bigint[], $4::real[]) AS m(id, confidence)`,
      [input.itemId, input.workspaceId, ids, ids.map((id) => byId.get(id)?.confidence ?? 0)],
    );
  }
  const added = ids.filter((id) => !old.has(id));
  const removed = [...old].filter((id) => !byId.has(id));
  if (added.length > 0) await tx.query('UPDATE entities SET item_count = item_count + 1 WHERE id = ANY($1::bigint[])', [added]);
  if (removed.length > 0) {
    await tx.query('UPDATE entities SET item_count = item_count - 1 WHERE id = ANY($1::bigint[])', [removed]);
    await tx.query('DELETE FROM entities WHERE id = ANY($1::bigint[]) AND item_count <= 0', [removed]);
  }
}

export interface ItemEntity extends EntityMention {
  itemCount: number;
}

export async function listItemEntities(db: Queryable, itemId: string): Promise<ItemEntity[]> {
  const res = await db.query<{ category: string; key: string; confidence: number; item_count: number }>(
    `SELECT e.category, e.key, m.confidence, e.item_count FROM entity_mentions m JOIN entities e ON e.id = m.entity_id
     WHERE m.item_id = $1 ORDER BY e.category, e.key`,
    [itemId],
  );
  return res.rows.map((r) => ({ category: r.category, key: r.key, confidence: Number(r.confidence), itemCount: Number(r.item_count) }));
}
