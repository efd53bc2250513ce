/**
 * `npx tsx bench/relink-index.ts --data <copy of an Engram data dir> [--no-verify]`
 *
 * Re-derives the related graph of a full index (a data dir built by the production job pipeline) after a
 * change to the linking rules, without re-indexing: every item's edges are derived again from its stored
 * `item_refs` with the production `deriveEdges` and written with `replaceItemEdges`, one item per
 * transaction under the workspace link lock, in `occurred_at` order (as a backfill indexes). Prints edge
 * counts by type before and after, and the reverts by level (commit -> commit, pull_request -> commit, ...).
 * Then, unless `--no-verify`, derives every item once more and counts items whose stored edges differ
 * from what their own derivation gives: edges that depend on the order items were linked in.
 * Rewrites the edges table: work on a copy of the data dir (`cp -r`), never on a live one.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RefRelation } from '@engram/contracts';
import { IDENTITY_RELATION, listItemEdges, lockWorkspaceLinks, openDatabase, replaceItemEdges, type Db, type EdgeRow } from '@engram/stores';
import { deriveEdges, type LinkedItem } from '@engram/indexer';

const { values: args } = parseArgs({ options: { data: { type: 'string' }, 'no-verify': { type: 'boolean', default: false } } });
if (!args.data) throw new Error('--data <copy of a data dir> is required');

const db = await openDatabase(`pglite://${join(args.data, 'db')}`);
const workspaces = (await db.query<{ id: string; name: string }>('SELECT id, name FROM workspaces ORDER BY created_at')).rows;
for (const ws of workspaces) {
  const items = await loadItems(db, ws.id);
  console.log(`\n== workspace ${ws.name} (${ws.id}): ${items.length} items`);
  const before = await countEdges(db, ws.id);

  let started = performance.now();
  for (const item of items) {
    await db.transaction(async (tx) => {
      await lockWorkspaceLinks(tx, ws.id);
      await replaceItemEdges(tx, { workspaceId: ws.id, itemId: item.id, edges: await deriveEdges(tx, item) });
    });
  }
  console.log(`relinked in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const after = await countEdges(db, ws.id);
  printCounts(before, after);

  if (args['no-verify']) continue;
  started = performance.now();
  const differing: string[] = [];
  for (const item of items) {
    const derived = (await deriveEdges(db, item)).map(edgeId).sort();
    const stored = (await listItemEdges(db, item.id)).map(edgeId).sort();
    if (derived.join('\n') !== stored.join('\n')) differing.push(item.id);
  }
  console.log(
    `verify (${((performance.now() - started) / 1000).toFixed(1)} s): ${differing.length} of ${items.length} items have stored edges their own derivation does not give` +
      (differing.length ? ` (first: ${differing.slice(0, 5).join(', ')})` : ''),
  );
}
await db.close();

/** Every item of the workspace with its identity keys and references as the indexer stored them. */
async function loadItems(database: Db, workspaceId: string): Promise<LinkedItem[]> {
  const rows = (
    await database.query<{ id: string; type: string; occurred_at: Date | string }>(
      'SELECT id, type, occurred_at FROM items WHERE workspace_id = $1 ORDER BY occurred_at, id',
      [workspaceId],
    )
  ).rows;
  const refs = (
    await database.query<{ item_id: string; key: string; relation: string; confidence: number }>(
      'SELECT item_id, key, relation, confidence FROM item_refs WHERE workspace_id = $1 ORDER BY item_id, key, relation',
      [workspaceId],
    )
  ).rows;
  const byItem = new Map<string, typeof refs>();
  for (const r of refs) byItem.set(r.item_id, [...(byItem.get(r.item_id) ?? []), r]);
  return rows.map((row) => {
    const own = byItem.get(row.id) ?? [];
    return {
      workspaceId,
      id: row.id,
      type: row.type,
      occurredAt: new Date(row.occurred_at).toISOString(),
      keys: own.filter((r) => r.relation === IDENTITY_RELATION).map((r) => r.key),
      refs: own
        .filter((r) => r.relation !== IDENTITY_RELATION)
        .map((r) => ({ key: r.key, relation: r.relation as RefRelation, confidence: Number(r.confidence) })),
    };
  });
}

function edgeId(e: EdgeRow): string {
  return `${e.sourceId} ${e.targetId} ${e.type}`;
}

/** Edge counts by type, plus reverts by the types of their two ends (`reverts commit->pull_request`). */
async function countEdges(database: Db, workspaceId: string): Promise<Map<string, number>> {
  const res = await database.query<{ type: string; levels: string | null; n: number | string }>(
    `SELECT e.type, NULL AS levels, count(*) AS n FROM edges e WHERE e.workspace_id = $1 GROUP BY e.type
     UNION ALL
     SELECT e.type, s.type || '->' || t.type AS levels, count(*) AS n
       FROM edges e JOIN items s ON s.id = e.source_id JOIN items t ON t.id = e.target_id
      WHERE e.workspace_id = $1 AND e.type = 'reverts' GROUP BY e.type, s.type, t.type`,
    [workspaceId],
  );
  return new Map(res.rows.map((r) => [r.levels ? `${r.type} ${r.levels}` : r.type, Number(r.n)]));
}

function printCounts(before: Map<string, number>, after: Map<string, number>): void {
  const labels = [...new Set([...before.keys(), ...after.keys()])].sort();
  console.log('| edge type | before | after | change |');
  console.log('| --- | --- | --- | --- |');
  for (const label of labels) {
    const [b, a] = [before.get(label) ?? 0, after.get(label) ?? 0];
    console.log(`| ${label} | ${b} | ${a} | ${a - b >= 0 ? '+' : ''}${a - b} |`);
  }
  const total = (m: Map<string, number>) => [...m].filter(([k]) => !k.includes(' ')).reduce((s, [, n]) => s + n, 0);
  console.log(`| total | ${total(before)} | ${total(after)} | ${total(after) - total(before)} |`);
}
