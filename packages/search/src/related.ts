/**
 * The related-event graph: breadth-first over `edges` in both directions from a root item, up to `depth`
 * hops, keeping the strongest edges first until `limit` nodes. Edges returned connect returned nodes only.
 *
 * A GitHub issue or PR that an item says it fixes or closes, but that is not indexed, still belongs in the
 * story ("what did this fix?"): it appears as a stub node (`ref:gh:owner/repo#N`) linked by a `fixes`
 * edge. A stub is a leaf: it has no edges of its own to follow.
 */
import type { RelatedEdge, RelatedNode, RelatedRequest } from '@engram/contracts';
import { danglingGithubRefs, edgesTouching, graphNodes, type GraphEdgeRow, type GraphNodeRow, type Queryable } from '@engram/stores';

export interface RelatedGraph {
  root: Omit<RelatedNode, 'isRoot'>;
  nodes: RelatedNode[];
  edges: RelatedEdge[];
  /** Hops explored (the requested depth). */
  depth: number;
}

type EdgeRow = GraphEdgeRow;
type NodeRow = GraphNodeRow;

/** Stub node ids start with this; no item id does, so contents and related answer not found for them. */
const STUB_ID_PREFIX = 'ref:';
/** The only relation and edge type that makes stubs. */
const STUB_RELATION = 'fixes';
/** `gh:owner/repo#N`: GitHub issues and pull requests share one number space. */
const GH_KEY = /^gh:([^/#\s]+\/[^/#\s]+)#(\d+)$/;

const isStubId = (id: string): boolean => id.startsWith(STUB_ID_PREFIX);

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

/** `/issues/N` also reaches a pull request numbered N: GitHub redirects it. */
function toStubNode(stubId: string, firstReferencedAt: string): RelatedNode | null {
  const m = GH_KEY.exec(stubId.slice(STUB_ID_PREFIX.length));
  if (!m) return null;
  const [, repo, n] = m;
  return { id: stubId, title: `${repo}#${n}`, source: 'github', type: 'issue', url: `https://github.com/${repo}/issues/${n}`, occurredAt: firstReferencedAt, isRoot: false };
}

/**
 * Stub edges out of `ids`: their `fixes` refs to GitHub numbers that no item of the workspace holds as
 * an identity key (an indexed target is reached through `edges` instead), strongest first. A squash
 * commit repeats its pull request's "Fixes #N"; the change fixed the issue once, so the edge is the PR's
 * (`commit_pr` edges point from the PR to the commit).
 */
async function stubEdgesFrom(db: Queryable, workspaceId: string, ids: string[], types: string[] | undefined): Promise<EdgeRow[]> {
  if (ids.length === 0 || (types !== undefined && !types.includes(STUB_RELATION))) return [];
  const refs = await danglingGithubRefs(db, workspaceId, ids, STUB_RELATION);
  return refs
    .filter((r) => GH_KEY.test(r.key))
    .map((r) => ({ source_id: r.item_id, target_id: `${STUB_ID_PREFIX}${r.key}`, type: STUB_RELATION, linking_key: r.key, confidence: r.confidence }));
}

/** Real edges and stub edges in one strongest-first order, so stubs compete for `limit` like real nodes. */
async function linksTouching(db: Queryable, workspaceId: string, ids: string[], types: string[] | undefined): Promise<EdgeRow[]> {
  const links = [...(await edgesTouching(db, workspaceId, ids, types)), ...(await stubEdgesFrom(db, workspaceId, ids, types))];
  // Stable sort on confidence alone keeps the SQL order of real edges; on a tie a real edge comes first.
  return links.sort((a, b) => Number(b.confidence) - Number(a.confidence));
}

/** A stub's time is when it was first referenced: the earliest referencing item among the returned nodes. */
function stubNodes(stubEdges: EdgeRow[], rows: Map<string, NodeRow>): Map<string, RelatedNode> {
  const firstAt = new Map<string, string>();
  for (const e of stubEdges) {
    const row = rows.get(e.source_id);
    if (!row) continue;
    const at = new Date(row.occurred_at).toISOString();
    const seen = firstAt.get(e.target_id);
    if (seen === undefined || at < seen) firstAt.set(e.target_id, at);
  }
  const out = new Map<string, RelatedNode>();
  for (const [id, at] of firstAt) {
    const node = toStubNode(id, at);
    if (node) out.set(id, node);
  }
  return out;
}

const toEdge = (e: EdgeRow): RelatedEdge => ({ source: e.source_id, target: e.target_id, type: e.type, linkingKey: e.linking_key, confidence: Number(e.confidence) });

/** The graph around `request.id`, or null when the workspace has no such item (a stub id is not one). */
export async function getRelatedGraph(db: Queryable, workspaceId: string, request: RelatedRequest): Promise<RelatedGraph | null> {
  if (isStubId(request.id)) return null;
  const rootRow = (await graphNodes(db, workspaceId, [request.id])).get(request.id);
  if (!rootRow) return null;
  const order: string[] = [request.id];
  const kept = new Set(order);
  let frontier = [request.id];
  for (let hop = 0; hop < request.depth && frontier.length > 0 && kept.size < request.limit; hop++) {
    const next: string[] = [];
    for (const e of await linksTouching(db, workspaceId, frontier, request.types)) {
      for (const id of [e.source_id, e.target_id]) {
        if (kept.has(id) || kept.size >= request.limit) continue;
        kept.add(id);
        order.push(id);
        if (!isStubId(id)) next.push(id);
      }
    }
    frontier = next;
  }
  const rows = await graphNodes(db, workspaceId, order.filter((id) => !isStubId(id)));
  const itemIds = [...rows.keys()];
  const stubEdges = (await stubEdgesFrom(db, workspaceId, itemIds, request.types)).filter((e) => kept.has(e.target_id));
  const stubs = stubNodes(stubEdges, rows);
  const nodes = order.flatMap((id) => {
    const row = rows.get(id);
    if (row) return [toNode(row, id === request.id)];
    const stub = stubs.get(id);
    return stub ? [stub] : [];
  });
  const present = new Set(nodes.map((n) => n.id));
  const edges = [...(await edgesTouching(db, workspaceId, itemIds, request.types)), ...stubEdges]
    .filter((e) => present.has(e.source_id) && present.has(e.target_id))
    .map(toEdge);
  const { isRoot: _isRoot, ...root } = toNode(rootRow, true);
  return { root, nodes, edges, depth: request.depth };
}
