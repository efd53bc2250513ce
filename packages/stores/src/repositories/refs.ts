import type { Queryable } from '../db.js';

/** `relation` of an item's own identity keys in `item_refs` (references carry a RefRelation). */
export const IDENTITY_RELATION = 'key';

export interface ItemRefRow {
  key: string;
  /** `key` for identity keys, else the reference's relation. */
  relation: string;
  confidence: number;
}

/** A key held or referenced by another item, with that item's type and time. */
export interface KeyMatch {
  itemId: string;
  itemType: string;
  occurredAt: string;
  key: string;
  relation: string;
  confidence: number;
}

/** Replaces every identity key and reference of an item. */
export async function replaceItemRefs(tx: Queryable, input: { workspaceId: string; itemId: string; refs: readonly ItemRefRow[] }): Promise<void> {
  await replaceItemsRefs(tx, input.workspaceId, [{ itemId: input.itemId, refs: input.refs }]);
}

export async function listItemRefs(db: Queryable, itemId: string): Promise<ItemRefRow[]> {
  const res = await db.query<{ key: string; relation: string; confidence: number }>(
    'SELECT key, relation, confidence FROM item_refs WHERE item_id = $1 ORDER BY key, relation',
    [itemId],
  );
  return res.rows.map((r) => ({ key: r.key, relation: r.relation, confidence: Number(r.confidence) }));
}

/** An `item_refs` row with its item's type and time, as the key reads return it. */
interface KeyRow {
  item_id: string;
  type: string;
  occurred_at: Date | string;
  key: string;
  relation: string;
  confidence: number;
}

/** `item_refs` rows (as `r`) with their items' types and times: a `KeyRow` each. */
const SELECT_KEY_ROWS = 'SELECT r.item_id, i.type, i.occurred_at, r.key, r.relation, r.confidence FROM item_refs r JOIN items i ON i.id = r.item_id';

const toKeyMatch = (r: KeyRow): KeyMatch => ({
  itemId: r.item_id,
  itemType: r.type,
  occurredAt: new Date(r.occurred_at).toISOString(),
  key: r.key,
  relation: r.relation,
  confidence: Number(r.confidence),
});

/**
 * Rows of other items on these keys. `relations` picks identity keys (`[IDENTITY_RELATION]`),
 * references of some relations, or (null) every reference but identity keys.
 */
export async function findKeyMatches(
  db: Queryable,
  input: { workspaceId: string; keys: readonly string[]; relations: readonly string[] | null; excludeItemId: string },
): Promise<KeyMatch[]> {
  if (input.keys.length === 0) return [];
  const res = await db.query<KeyRow>(
    `${SELECT_KEY_ROWS}
     WHERE r.workspace_id = $1 AND r.key = ANY($2::text[]) AND r.item_id <> $3
       AND (CASE WHEN $4::text[] IS NULL THEN r.relation <> $5 ELSE r.relation = ANY($4::text[]) END)`,
    [input.workspaceId, [...new Set(input.keys)], input.excludeItemId, input.relations, IDENTITY_RELATION],
  );
  return res.rows.map(toKeyMatch);
}

/** `replaceItemRefs` for many items of one workspace, in two statements. */
export async function replaceItemsRefs(tx: Queryable, workspaceId: string, items: readonly { itemId: string; refs: readonly ItemRefRow[] }[]): Promise<void> {
  if (items.length === 0) return;
  await tx.query('DELETE FROM item_refs WHERE item_id = ANY($1::text[])', [items.map((i) => i.itemId)]);
  const rows = new Map<string, { itemId: string; key: string; relation: string; confidence: number }>();
  for (const { itemId, refs } of items) {
    for (const r of refs) {
      const id = `${itemId}\u0000${r.key}\u0000${r.relation}`;
      const seen = rows.get(id);
      if (!seen || seen.confidence < r.confidence) rows.set(id, { itemId, ...r });
    }
  }
  if (rows.size === 0) return;
  const list = [...rows.values()];
  await tx.query(
    `INSERT INTO item_refs (workspace_id, item_id, key, relation, confidence)
     SELECT $1, r.item_id, r.key, r.relation, r.confidence FROM unnest($2::text[], $3::text[], $4::text[], $5::real[]) AS r(item_id, key, relation, confidence)`,
    [workspaceId, list.map((r) => r.itemId), list.map((r) => r.key), list.map((r) => r.relation), list.map((r) => r.confidence)],
  );
}

/**
 * The rows on some keys in a workspace, with their items' types and times: every row on `anyRelation`,
 * and the rows other than identity rows (references) on `referencesOnly` (a key in both: every row, once).
 * The references come from the index of references alone (migration 017): an item's own keys include its
 * title, and a title like "Update dependencies" is the identity key of hundreds of items, each of whose
 * rows the index of every row made the database fetch and drop (1,136 of 1,169 rows for 34 items at 100k).
 */
export async function findKeyRows(db: Queryable, workspaceId: string, keys: { anyRelation: readonly string[]; referencesOnly: readonly string[] }): Promise<KeyMatch[]> {
  if (keys.anyRelation.length === 0 && keys.referencesOnly.length === 0) return [];
  const res = await db.query<KeyRow>(
    `${SELECT_KEY_ROWS} WHERE r.workspace_id = $1 AND r.key = ANY($2::text[])
     UNION ALL
     ${SELECT_KEY_ROWS} WHERE r.workspace_id = $1 AND r.key = ANY($3::text[]) AND r.relation <> '${IDENTITY_RELATION}' AND r.key <> ALL($2::text[])`,
    [workspaceId, keys.anyRelation, keys.referencesOnly],
  );
  return res.rows.map(toKeyMatch);
}
