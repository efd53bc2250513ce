import type { Queryable } from '@engram/stores';
import { inverseDocumentFrequency, TOPICAL_CATEGORIES, type TopicalCategory, type TopicalEntity } from './features.js';

/** Number of items in the workspace, the N of every IDF here. */
export async function countItems(db: Queryable, workspaceId: string): Promise<number> {
  const res = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM items WHERE workspace_id = $1', [workspaceId]);
  return res.rows[0]?.n ?? 0;
}

/**
 * The topical entities of each item, weighted by their IDF in the workspace (document frequency is
 * `entities.item_count`, kept by the pipeline). Items without any are absent from the map.
 */
export async function loadTopicalEntities(db: Queryable, workspaceId: string, itemIds: readonly string[], itemCount: number): Promise<Map<string, TopicalEntity[]>> {
  const out = new Map<string, TopicalEntity[]>();
  if (itemIds.length === 0) return out;
  const res = await db.query<{ item_id: string } & EntityRow>(
    `SELECT em.item_id, e.category, e.key, em.confidence, e.item_count AS df
     FROM entity_mentions em JOIN entities e ON e.id = em.entity_id
     WHERE em.workspace_id = $1 AND em.item_id = ANY($2::text[]) AND e.category = ANY($3::text[])`,
    [workspaceId, itemIds, TOPICAL_CATEGORIES],
  );
  for (const row of res.rows) {
    const list = out.get(row.item_id) ?? [];
    list.push(toTopicalEntity(row, itemCount));
    out.set(row.item_id, list);
  }
  return out;
}

export interface EntityRow {
  category: TopicalCategory;
  key: string;
  confidence: number;
  df: number;
}

export const toTopicalEntity = (row: EntityRow, itemCount: number): TopicalEntity => ({
  category: row.category,
  key: row.key,
  confidence: Number(row.confidence),
  idf: inverseDocumentFrequency(itemCount, Math.max(1, Number(row.df))),
  itemCount: Number(row.df),
});

export interface ItemText {
  title: string;
  snippet: string;
}

/** Titles (falling back to the snippet) of items, for labels and summaries. */
export async function loadItemTexts(db: Queryable, itemIds: readonly string[]): Promise<Map<string, ItemText>> {
  const out = new Map<string, ItemText>();
  if (itemIds.length === 0) return out;
  const res = await db.query<{ id: string; title: string | null; snippet: string }>('SELECT id, title, snippet FROM items WHERE id = ANY($1::text[])', [itemIds]);
  for (const row of res.rows) out.set(row.id, { title: (row.title ?? '').trim() || row.snippet.split('\n')[0]?.trim() || '', snippet: row.snippet });
  return out;
}
