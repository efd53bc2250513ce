/**
 * The related-event graph: breadth-first over `edges` in both directions from a root item, up to `depth`
 * hops, keeping the strongest edges first until `limit` nodes. Edges returned connect returned nodes only.
 */
import type { RelatedEdge, RelatedNode, RelatedRequest } from '@engram/contracts';
import type { Queryable } from '@engram/stores';

export interface RelatedGraph {
  root: Omit<RelatedNode, 'isRoot'>;
  nodes: RelatedNode[];
  edges: RelatedEdge[];
  /** Hops explored (the requested depth). */
  depth: number;
}

interface EdgeRow {
  source_id: string;
  target_id: string;
  type: string;
  linking_key: string;
  confidence: number;
}

interface NodeRow {
  id: string;
  title: string | null;
  snippet: string;
  source: string;
  type: string;
  url: string;
  external_id: string;
  occurred_at: Date | string;
}

/** A node always has a title: the item's, else the first line of its snippet, else its provider id. */
const titleOf = (r: NodeRow): string => r.title?.trim() || r.snippet.split('\n')[0]?.trim().slice(0, 120) || r.external_id;

const toNode = (r: NodeRow, isRoot: boolean): RelatedNode => ({
  id: r.id,
  title: titleOf(r),
  source: r.source,
  type: r.type,
  url: r.url,
  occurredAt: new Date(r.occurred_at).toISOString(),
  isRoot,
});

async function loadNodes(db: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, NodeRow>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<NodeRow>(
    'SELECT id, title, snippet, source, type, url, external_id, occurred_at FROM items WHERE workspace_id = $1 AND id = ANY($2::text[])',
    [workspaceId, ids],
  );
  return new Map(res.rows.map((r) => [r.id, r]));
}

/** Edges touching any of `ids`, strongest first; `types` restricts the edge types followed. */
async function edgesTouching(db: Queryable, workspaceId: string, ids: string[], types: string[] | undefined): Promise<EdgeRow[]> {
  const res = await db.query<EdgeRow>(
    `SELECT source_id, target_id, type, linking_key, confidence FROM edges
     WHERE workspace_id = $1 AND (source_id = ANY($2::text[]) OR target_id = ANY($2::text[]))
       AND ($3::text[] IS NULL OR type = ANY($3::text[]))
     ORDER BY confidence DESC, type, source_id, target_id`,
    [workspaceId, ids, types ?? null],
  );
  return res.rows;
}

/** The graph around `request.id`, or null when the workspace has no such item. */
export async function getRelatedGraph(db: Queryable, workspaceId: string, request: RelatedRequest): Promise<RelatedGraph | null> {
  const rootRow = (await loadNodes(db, workspaceId, [request.id])).get(request.id);
  if (!rootRow) return null;
  const order: string[] = [request.id];
  const kept = new Set(order);
  let frontier = [request.id];
  for (let hop = 0; hop < request.depth && frontier.length > 0 && kept.size < request.limit; hop++) {
    const next: string[] = [];
    for (const e of await edgesTouching(db, workspaceId, frontier, request.types)) {
      for (const id of [e.source_id, e.target_id]) {
        if (kept.has(id) || kept.size >= request.limit) continue;
        kept.add(id);
        order.push(id);
        next.push(id);
      }
    }
    frontier = next;
  }
  const rows = await loadNodes(db, workspaceId, order);
  const nodes = order.flatMap((id) => {
    const row = rows.get(id);
    return row ? [toNode(row, id === request.id)] : [];
  });
  const present = new Set(nodes.map((n) => n.id));
  const edges = (await edgesTouching(db, workspaceId, [...present], request.types))
    .filter((e) => present.has(e.source_id) && present.has(e.target_id))
    .map((e) => ({ source: e.source_id, target: e.target_id, type: e.type, linkingKey: e.linking_key, confidence: Number(e.confidence) }));
  const { isRoot: _isRoot, ...root } = toNode(rootRow, true);
  return { root, nodes, edges, depth: request.depth };
}
