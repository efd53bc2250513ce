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
  await replaceItemsEntities(tx, input.workspaceId, [{ itemId: input.itemId, entities: input.entities }]);
}

/** Two ids of a bigint column as the database gives them (decimal strings), in numeric order. */
const byNumber = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** Entity mentions one statement inserts at most (`replaceItemsEntities`). */
export const MENTIONS_PER_STATEMENT = 500;

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

/**
 * `replaceItemEntities` for many items of one workspace: one upsert of every entity named (in key order)
 * that also adds to `item_count` the items naming it, one rewrite of the mentions, and, for items that
 * had mentions before, one correction of the counts by their old mentions (an entity kept is counted
 * once again by the upsert, one dropped is no longer named). An import's new items take the upsert alone.
 */
export async function replaceItemsEntities(tx: Queryable, workspaceId: string, items: readonly { itemId: string; entities: readonly EntityMention[] }[]): Promise<void> {
  if (items.length === 0) return;
  const perItem = items.map(({ itemId, entities }) => {
    const unique = new Map<string, EntityMention>();
    for (const e of entities) {
      const id = `${e.category}\u0000${e.key}`;
      const seen = unique.get(id);
      if (!seen || seen.confidence < e.confidence) unique.set(id, e);
    }
    return { itemId, unique };
  });
  const itemIds = perItem.map((i) => i.itemId);
  const named = new Map<string, { entity: EntityMention; items: number }>();
  for (const { unique } of perItem) {
    for (const [id, entity] of unique) {
      const seen = named.get(id);
      if (seen) seen.items++;
      else named.set(id, { entity, items: 1 });
    }
  }
  const list = [...named.values()].sort((a, b) => (a.entity.category + a.entity.key < b.entity.category + b.entity.key ? -1 : 1));
  const entityId = new Map<string, string>();
  /** Items of this call naming each entity, by entity id. */
  const namedItems = new Map<string, number>();
  if (list.length > 0) {
    const res = await tx.query<{ id: string; category: string; key: string }>(
      `INSERT INTO entities (workspace_id, category, key, item_count)
       SELECT $1, e.category, e.key, e.n FROM unnest($2::text[], $3::text[], $4::int[]) AS e(category, key, n)
       ON CONFLICT (workspace_id, category, key) DO UPDATE SET item_count = entities.item_count + EXCLUDED.item_count
       RETURNING id, category, key`,
      [workspaceId, list.map((e) => e.entity.category), list.map((e) => e.entity.key), list.map((e) => e.items)],
    );
    for (const r of res.rows) {
      const key = `${r.category}\u0000${r.key}`;
      entityId.set(key, String(r.id));
      namedItems.set(String(r.id), named.get(key)!.items);
    }
  }
  const before = await tx.query<{ entity_id: string }>('DELETE FROM entity_mentions WHERE item_id = ANY($1::text[]) RETURNING entity_id', [itemIds]);
  const mentions: { entity: string; item: string; confidence: number }[] = [];
  for (const { itemId, unique } of perItem) {
    for (const [key, e] of unique) {
      const id = entityId.get(key);
      if (id !== undefined) mentions.push({ entity: id, item: itemId, confidence: e.confidence });
    }
  }
  // In the entity index's order, a slice at a time: each statement then holds the connection for a bounded
  // time (a batch's 2,600 mentions into a 100k-item index took up to 1.5 s in one statement on an idle
  // embedded database, 4.4 s under 16 searching clients, while their page reads waited for it).
  mentions.sort((a, b) => byNumber(a.entity, b.entity) || (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
  for (let start = 0; start < mentions.length; start += MENTIONS_PER_STATEMENT) {
    const slice = mentions.slice(start, start + MENTIONS_PER_STATEMENT);
    await tx.query(
      `INSERT INTO entity_mentions (entity_id, item_id, workspace_id, confidence)
       SELECT m.id, m.item, $1, m.confidence FROM unnest($2::bigint[], $3::text[], $4::real[]) AS m(id, item, confidence)`,
      [workspaceId, slice.map((m) => m.entity), slice.map((m) => m.item), slice.map((m) => m.confidence)],
    );
  }
  if (before.rows.length === 0) return;
  const old = new Map<string, number>();
  for (const r of before.rows) old.set(String(r.entity_id), (old.get(String(r.entity_id)) ?? 0) + 1);
  const ids = [...old.keys()].sort(byNumber);
  await tx.query('UPDATE entities e SET item_count = e.item_count - d.d FROM unnest($1::bigint[], $2::int[]) AS d(id, d) WHERE e.id = d.id', [
    ids,
    ids.map((id) => old.get(id)!),
  ]);
  // Only an entity these items name less often than before can have fallen to no items.
  const fell = ids.filter((id) => (namedItems.get(id) ?? 0) < old.get(id)!);
  if (fell.length > 0) await tx.query('DELETE FROM entities WHERE id = ANY($1::bigint[]) AND item_count <= 0', [fell]);
}
