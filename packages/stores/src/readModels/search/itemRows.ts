import type { Queryable } from '../../db.js';
import { itemFilterSql } from './filterSql.js';
import type { ItemFilter } from './types.js';

/** An item as search shows it and the second stage reads it (content cut at 4,000 characters). */
export interface SearchItemRow {
  id: string;
  type: string;
  source: string;
  title: string | null;
  snippet: string;
  content: string;
  url: string;
  occurred_at: Date | string;
  actor_names: string[];
  files: string[];
  metadata: Record<string, unknown>;
}

const ROW_COLUMNS = 'id, type, source, title, snippet, left(content, 4000) AS content, url, occurred_at, actor_names, files, metadata';

/** Rows of the given ids that pass the filter, by id. */
export async function readItemRows(db: Queryable, filter: ItemFilter, ids: readonly string[]): Promise<Map<string, SearchItemRow>> {
  if (ids.length === 0) return new Map();
  const where = itemFilterSql(filter, 2);
  const res = await db.query<SearchItemRow>(`SELECT ${ROW_COLUMNS} FROM items i WHERE i.id = ANY($1::text[]) AND ${where.sql}`, [ids, ...where.params]);
  return new Map(res.rows.map((r) => [r.id, r]));
}
