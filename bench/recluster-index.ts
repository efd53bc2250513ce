/**
 * `npx tsx bench/recluster-index.ts --data /tmp/cluster-fix-index [--concurrency 8] [--before] [--no-recluster]`
 *
 * Topic clusters on a full Engram index (a data dir built by the production job pipeline): wipes the
 * workspace's clusters, re-assigns every item with its stored chunk-0 vector in `occurred_at` order
 * (with N concurrent assigners, as the index.event jobs run), runs `recluster`, and prints cluster
 * count, size distribution, the largest clusters with their labels, the share of items in the largest
 * cluster and how many squash commits share a cluster with their PR (`commit_pr` edges).
 * `--before` only reports the clusters already in the data dir. Work on a copy of the data dir.
 */
import { parseArgs } from 'node:util';
import type { Db } from '@engram/stores';
import { assignCluster, recluster } from '@engram/indexer';
import { openKeptIndex } from './runtime.js';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '/tmp/cluster-fix-index' },
    concurrency: { type: 'string', default: '8' },
    before: { type: 'boolean', default: false },
    'no-recluster': { type: 'boolean', default: false },
  },
});

const { db, workspaceId, store, model, dimensions } = await openKeptIndex(args.data!);
console.log(`data dir ${args.data}: workspace ${workspaceId}, vectors ${model}/${dimensions}`);

if (args.before) {
  await report('clusters as found in the data dir');
  await db.close();
  process.exit(0);
}

const items = (await db.query<{ id: string }>('SELECT id FROM items WHERE workspace_id = $1 ORDER BY occurred_at, id', [workspaceId])).rows.map((r) => r.id);
const vectors = new Map<string, Float32Array>();
for (let i = 0; i < items.length; i += 500) for (const [id, v] of await store.getVectors(workspaceId, items.slice(i, i + 500))) vectors.set(id, v);
const ordered = items.filter((id) => vectors.has(id));
console.log(`${items.length} items, ${ordered.length} with a chunk-0 vector`);

await db.transaction(async (tx) => {
  await tx.query('DELETE FROM cluster_members WHERE workspace_id = $1', [workspaceId]);
  await tx.query('DELETE FROM clusters WHERE workspace_id = $1', [workspaceId]);
});

const concurrency = Math.max(1, Number(args.concurrency));
let started = performance.now();
let next = 0;
let created = 0;
let retried = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < ordered.length) {
      const itemId = ordered[next++]!;
      // A job that throws is retried by the queue (attempts with backoff): do the same here.
      for (let attempt = 1; ; attempt++) {
        try {
          if ((await assignCluster(db, { workspaceId, itemId, vector: Array.from(vectors.get(itemId)!) })).created) created++;
          break;
        } catch (error) {
          if (attempt >= 5) throw error;
          retried++;
          await new Promise((resolve) => setTimeout(resolve, 5 * attempt * Math.random()));
        }
      }
    }
  }),
);
console.log(`assigned ${ordered.length} items with ${concurrency} concurrent assigners in ${((performance.now() - started) / 1000).toFixed(1)} s (${created} seeded, ${retried} job retries after lost races)`);
await report('after incremental assignment');

if (!args['no-recluster']) {
  started = performance.now();
  const result = await recluster(db, store, workspaceId);
  console.log(`\nrecluster: ${JSON.stringify(result)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await report('after recluster');
}
await db.close();

async function report(stage: string): Promise<void> {
  await printClusters(db, stage);
}

async function printClusters(database: Db, stage: string): Promise<void> {
  const clusters = (await database.query<{ id: string; topic: string; keywords: string[]; member_count: number }>(
    'SELECT id, topic, keywords, member_count FROM clusters WHERE workspace_id = $1 ORDER BY member_count DESC, id', [workspaceId])).rows;
  const members = (await database.query<{ item_id: string; cluster_id: string }>('SELECT item_id, cluster_id FROM cluster_members WHERE workspace_id = $1', [workspaceId])).rows;
  const clusterOf = new Map(members.map((m) => [m.item_id, m.cluster_id]));
  const sizes = clusters.map((c) => c.member_count);
  const total = members.length || 1;
  const buckets: [string, (s: number) => boolean][] = [
    ['1', (s) => s === 1], ['2', (s) => s === 2], ['3-5', (s) => s >= 3 && s <= 5], ['6-10', (s) => s >= 6 && s <= 10],
    ['11-25', (s) => s >= 11 && s <= 25], ['26-100', (s) => s >= 26 && s <= 100], ['101-300', (s) => s > 100 && s <= 300], ['>300', (s) => s > 300],
  ];
  console.log(`\n== ${stage}: ${clusters.length} clusters for ${members.length} items`);
  console.log(`   sizes ${buckets.map(([l, f]) => `${l}: ${sizes.filter(f).length}`).join(', ')}`);
  console.log(`   largest cluster: ${sizes[0] ?? 0} items (${(((sizes[0] ?? 0) / total) * 100).toFixed(1)}%); items in clusters of >= 3: ${((sizes.filter((s) => s >= 3).reduce((a, s) => a + s, 0) / total) * 100).toFixed(1)}%`);
  const pairs = (await database.query<{ source_id: string; target_id: string }>("SELECT source_id, target_id FROM edges WHERE workspace_id = $1 AND type = 'commit_pr'", [workspaceId])).rows
    .filter((p) => clusterOf.has(p.source_id) && clusterOf.has(p.target_id));
  const together = pairs.filter((p) => clusterOf.get(p.source_id) === clusterOf.get(p.target_id)).length;
  console.log(`   squash commit + PR in one cluster: ${together}/${pairs.length} (${((together / Math.max(1, pairs.length)) * 100).toFixed(1)}%)`);
  console.log('   10 largest:');
  for (const c of clusters.slice(0, 10)) console.log(`     [${c.member_count}] ${c.topic.slice(0, 80)} | ${c.keywords.slice(0, 6).join(', ')}`);
}
