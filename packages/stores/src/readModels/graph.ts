/** Reads of the related-event graph: nodes (items), edges between them, and `fixes` refs to unindexed GitHub numbers. */
import type { Queryable } from '../db.js';
import { IDENTITY_RELATION } from '../repositories/refs.js';

export interface GraphEdgeRow {
  source_id: string;
  target_id: string;
  type: string;
  linking_key: string;
  confidence: number;
}

export interface GraphNodeRow {
  id: string;
  title: string | null;
  snippet: string;
  source: string;
  type: string;
  url: string;
  external_id: string;
  occurred_at: Date | string;
}

/** A `fixes`-style ref from an item to a key no item of the workspace holds. */
export interface DanglingRefRow {
  item_id: string;
  key: string;
  confidence: number;
}

/** The workspace's items among `ids`, by id. */
export async function graphNodes(db: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, GraphNodeRow>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<GraphNodeRow>(
    'SELECT id, title, snippet, source, type, url, external_id, occurred_at FROM items WHERE workspace_id = $1 AND id = ANY($2::text[])',
    [workspaceId, ids],
  );
  return new Map(res.rows.map((r) => [r.id, r]));
}

/** Edges touching any of `ids`, strongest first; `types` restricts the edge types returned. */
export async function edgesTouching(db: Queryable, workspaceId: string, ids: string[], types: string[] | undefined): Promise<GraphEdgeRow[]> {
  const res = await db.query<GraphEdgeRow>(
    `SELECT source_id, target_id, type, linking_key, confidence FROM edges
     WHERE workspace_id = $1 AND (source_id = ANY($2::text[]) OR target_id = ANY($2::text[]))
       AND ($3::text[] IS NULL OR type = ANY($3::text[]))
     ORDER BY confidence DESC, type, source_id, target_id`,
    [workspaceId, ids, types ?? null],
  );
  return res.rows;
}

/**
 * Refs of `relation` from `ids` to GitHub keys (`gh:...`) that no item of the workspace holds as an identity
 * key, strongest first. A squash commit repeating its pull request's ref is left out: the ref is the PR's
 * (`commit_pr` edges point from the PR to the commit).
 */
export async function danglingGithubRefs(db: Queryable, workspaceId: string, ids: string[], relation: string): Promise<DanglingRefRow[]> {
  if (ids.length === 0) return [];
  const res = await db.query<DanglingRefRow>(
    `SELECT r.item_id, r.key, r.confidence FROM item_refs r
     WHERE r.workspace_id = $1 AND r.item_id = ANY($2::text[]) AND r.relation = $3 AND r.key LIKE 'gh:%'
       AND NOT EXISTS (SELECT 1 FROM item_refs h WHERE h.workspace_id = $1 AND h.key = r.key AND h.relation = $4)
       AND NOT EXISTS (
         SELECT 1 FROM edges e JOIN item_refs p ON p.workspace_id = $1 AND p.item_id = e.source_id AND p.key = r.key AND p.relation = r.relation
         WHERE e.workspace_id = $1 AND e.type = 'commit_pr' AND e.target_id = r.item_id)
     ORDER BY r.confidence DESC, r.item_id, r.key`,
    [workspaceId, ids, relation, IDENTITY_RELATION],
  );
  return res.rows;
}
