import type { Queryable } from '../db.js';

export interface EdgeRow {
  sourceId: string;
  targetId: string;
  type: string;
  linkingKey: string;
  confidence: number;
}

/**
 * Makes the edges touching `itemId` exactly `edges`: those no longer derived are removed, the rest
 * upserted (unique per source, target, type; the higher confidence and its key win).
 */
export async function replaceItemEdges(tx: Queryable, input: { workspaceId: string; itemId: string; edges: readonly EdgeRow[] }): Promise<void> {
  await replaceItemsEdges(tx, { workspaceId: input.workspaceId, itemIds: [input.itemId], edges: input.edges });
}

/** Edges where the item is source or target. */
export async function listItemEdges(db: Queryable, itemId: string): Promise<EdgeRow[]> {
  const res = await db.query<{ source_id: string; target_id: string; type: string; linking_key: string; confidence: number }>(
    'SELECT source_id, target_id, type, linking_key, confidence FROM edges WHERE source_id = $1 OR target_id = $1 ORDER BY type, source_id, target_id',
    [itemId],
  );
  return res.rows.map((r) => ({ sourceId: r.source_id, targetId: r.target_id, type: r.type, linkingKey: r.linking_key, confidence: Number(r.confidence) }));
}

export async function listWorkspaceEdges(db: Queryable, workspaceId: string, types?: readonly string[]): Promise<EdgeRow[]> {
  const res = await db.query<{ source_id: string; target_id: string; type: string; linking_key: string; confidence: number }>(
    `SELECT source_id, target_id, type, linking_key, confidence FROM edges WHERE workspace_id = $1
     AND ($2::text[] IS NULL OR type = ANY($2::text[])) ORDER BY type, source_id, target_id`,
    [workspaceId, types ?? null],
  );
  return res.rows.map((r) => ({ sourceId: r.source_id, targetId: r.target_id, type: r.type, linkingKey: r.linking_key, confidence: Number(r.confidence) }));
}

/**
 * Serialises the linking step of a workspace's indexers until commit: under READ COMMITTED the next
 * indexer then sees this one's keys and refs, so an edge is found whichever item commits first.
 */
export async function lockWorkspaceLinks(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`engram:links:${workspaceId}`]);
}

/**
 * `replaceItemEdges` for many items at once: the edges touching any of `itemIds` become exactly `edges`
 * (each edge listed once per source, target and type; the higher confidence and its key win).
 */
export async function replaceItemsEdges(tx: Queryable, input: { workspaceId: string; itemIds: readonly string[]; edges: readonly EdgeRow[] }): Promise<void> {
  if (input.itemIds.length === 0) return;
  const unique = new Map<string, EdgeRow>();
  for (const e of input.edges) {
    const id = `${e.sourceId}\u0000${e.targetId}\u0000${e.type}`;
    const seen = unique.get(id);
    if (!seen || seen.confidence < e.confidence) unique.set(id, e);
  }
  const edges = [...unique.values()];
  await tx.query(
    `DELETE FROM edges e WHERE (e.source_id = ANY($1::text[]) OR e.target_id = ANY($1::text[]))
       AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[], $4::text[]) AS k(s, t, y) WHERE k.s = e.source_id AND k.t = e.target_id AND k.y = e.type)`,
    [[...input.itemIds], edges.map((e) => e.sourceId), edges.map((e) => e.targetId), edges.map((e) => e.type)],
  );
  if (edges.length === 0) return;
  await tx.query(
    `INSERT INTO edges (workspace_id, source_id, target_id, type, linking_key, confidence)
     SELECT $1, e.s, e.t, e.y, e.k, e.c FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::real[]) AS e(s, t, y, k, c)
     ORDER BY e.s, e.t, e.y
     ON CONFLICT (source_id, target_id, type) DO UPDATE SET
       linking_key = CASE WHEN EXCLUDED.confidence > edges.confidence THEN EXCLUDED.linking_key ELSE edges.linking_key END,
       confidence = GREATEST(edges.confidence, EXCLUDED.confidence)`,
    [input.workspaceId, edges.map((e) => e.sourceId), edges.map((e) => e.targetId), edges.map((e) => e.type), edges.map((e) => e.linkingKey), edges.map((e) => e.confidence)],
  );
}
