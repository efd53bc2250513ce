/** The item columns the contents operation returns, read by id within one workspace. */
import type { Queryable } from '../db.js';

export interface ContentRow {
  id: string;
  title: string | null;
  url: string;
  snippet: string;
  content: string;
  source: string;
  type: string;
  occurred_at: Date | string;
  container: string | null;
  state: string | null;
  labels: string[];
  files: string[];
  actor_names: string[];
  metadata: Record<string, unknown> | null;
}

/** The workspace's items among `ids` (any order; ids of other workspaces and unknown ids are absent). */
export async function contentRows(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<ContentRow[]> {
  if (ids.length === 0) return [];
  const res = await db.query<ContentRow>(
    `SELECT id, title, url, snippet, content, source, type, occurred_at, container, state, labels, files, actor_names, metadata
     FROM items WHERE workspace_id = $1 AND id = ANY($2::text[])`,
    [workspaceId, ids],
  );
  return res.rows;
}
