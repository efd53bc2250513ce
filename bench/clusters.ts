/**
 * `npx tsx bench/clusters.ts [--n 3000] [--threshold 0.6] [--merge 0.8] [--text-weight 0.7] [--seed 1]`
 *
 * Topic clusters and actor expertise on real data: loads the N newest items of the prettier export
 * into a fresh in-memory PGlite (items, entities, actors written as the pipeline does), embeds them
 * with the offline embedder (vectors cached in the temp dir between runs), assigns every item
 * incrementally in time order, runs the re-cluster job and the expertise refresh, and prints what a
 * reader needs to judge the clusters.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createPgVectorStore, openDatabase, migrate, createWorkspace, sha256 } from '@engram/stores';
import { assignCluster, recluster, refreshExpertise, DEFAULT_FEATURE_SPACE, DEFAULT_PARTITION } from '@engram/indexer';
import { centroidsFor, nearestCluster } from '@engram/indexer/centroids';
import { createOfflineEmbedder, OFFLINE_MODEL } from '@engram/indexer/embeddings';
import { actorIdOf, insertFixtureItem, PRETTIER_DATA, readJson, titleAndBody, type Link, type RestItem } from '@engram/indexer/testing';

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '3000' },
    threshold: { type: 'string', default: '' },
    merge: { type: 'string', default: '' },
    'text-weight': { type: 'string', default: '' },
    seed: { type: 'string', default: '1' },
  },
});
const n = Number(args.n);
const threshold = args.threshold ? Number(args.threshold) : undefined;
const space = args['text-weight'] ? { ...DEFAULT_FEATURE_SPACE, textWeight: Number(args['text-weight']) } : DEFAULT_FEATURE_SPACE;
const mergeThreshold = args.merge ? Number(args.merge) : DEFAULT_PARTITION.mergeThreshold;

let rng = Number(args.seed) || 1;
const random = (): number => ((rng = (rng * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;

type CorpusItem = RestItem & { created_at?: string; commit?: { message: string; author: { name: string; date?: string } } };
const occurredAt = (item: CorpusItem): string => (item.type === 'pull_request' ? item.created_at : item.commit?.author.date) ?? '2020-01-01T00:00:00Z';
// The N newest items of both kinds, then assigned oldest first as they would have arrived.
const corpus = readJson<CorpusItem[]>('corpus.json')
  .sort((a, b) => Date.parse(occurredAt(b)) - Date.parse(occurredAt(a)))
  .slice(0, n)
  .reverse();
console.log(`data: ${PRETTIER_DATA}/corpus.json, ${corpus.length} items (${corpus.filter((i) => i.type === 'pull_request').length} pull requests)`);

// Embeddings, cached by text hash so tuning runs do not pay the model again.
const texts = corpus.map((item) => {
  const { title, body } = titleAndBody(item);
  return `${title}\n\n${body}`;
});
const cachePath = join(tmpdir(), `engram-bench-clusters-${OFFLINE_MODEL}.json`);
const cached: Record<string, number[]> = existsSync(cachePath) ? (JSON.parse(readFileSync(cachePath, 'utf8')) as Record<string, number[]>) : {};
const missing = [...new Set(texts.filter((t) => !cached[sha256(t)]))];
if (missing.length > 0) {
  const started = performance.now();
  const embedder = await createOfflineEmbedder();
  const vectors = await embedder.embed(missing);
  await embedder.close();
  missing.forEach((t, i) => (cached[sha256(t)] = vectors[i]!.map((x) => Math.round(x * 1e6) / 1e6)));
  writeFileSync(cachePath, JSON.stringify(cached));
  console.log(`embedded ${missing.length} texts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const db = await openDatabase('pglite://memory');
await migrate(db);
const workspaceId = (await createWorkspace(db, 'bench-clusters')).id;
const store = await createPgVectorStore(db);
await store.ensureCollection({ model: OFFLINE_MODEL, dimensions: 512 });

let started = performance.now();
const itemIds: string[] = [];
const titles = new Map<string, string>();
const logins = new Map<string, number>();
for (const item of corpus) {
  const { title, body } = titleAndBody(item);
  const login = (item.type === 'pull_request' ? item.user?.login : item.author?.login) ?? item.commit?.author.name ?? 'unknown';
  const committer = item.type === 'commit' ? (item as { committer?: { login?: string } }).committer?.login : undefined;
  const actors = [{ login, role: 'author' as const }, ...(committer && committer !== 'github' && committer !== login ? [{ login: committer, role: 'committer' as const }] : [])];
  logins.set(login, (logins.get(login) ?? 0) + 1);
  const id = await insertFixtureItem(db, workspaceId, {
    externalId: item.id, type: item.type, title, body, files: item.files.map((f) => f.filename),
    labels: (item.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)), actors, occurredAt: occurredAt(item),
  });
  itemIds.push(id);
  titles.set(id, `${item.type === 'commit' ? 'commit' : 'PR'}: ${title.slice(0, 90)}`);
}
const vectorOf = (i: number): number[] => cached[sha256(texts[i]!)]!;
await store.upsert(corpus.map((item, i) => ({
  id: itemIds[i]!, itemId: itemIds[i]!, workspaceId, vector: vectorOf(i), source: 'github', type: item.type, occurredAt: occurredAt(item), actorNames: [],
})));
console.log(`loaded items, entities, actors, vectors in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const assignMs: number[] = [];
let created = 0;
for (let i = 0; i < itemIds.length; i++) {
  const t = performance.now();
  const result = await assignCluster(db, { workspaceId, itemId: itemIds[i]!, vector: vectorOf(i), options: { threshold, space } });
  assignMs.push(performance.now() - t);
  if (result.created) created++;
}
const total = assignMs.reduce((a, b) => a + b, 0);
console.log(`\nincremental: ${created} clusters seeded; per assignment mean ${(total / assignMs.length).toFixed(2)} ms, p50 ${pct(assignMs, 0.5).toFixed(2)} ms, p95 ${pct(assignMs, 0.95).toFixed(2)} ms, last 500 mean ${(assignMs.slice(-500).reduce((a, b) => a + b, 0) / Math.min(500, assignMs.length)).toFixed(2)} ms`);
{
  // The in-memory part of an assignment: one scan over every centroid of the workspace.
  const cache = await centroidsFor(db, workspaceId, 512 + space.entityDimensions, { ttlMs: 60_000 });
  const probe = Float32Array.from({ length: 512 + space.entityDimensions }, (_, i) => Math.sin(i));
  const t = performance.now();
  for (let i = 0; i < 100; i++) await nearestCluster(cache, probe);
  console.log(`centroid scan over ${cache.clusters.size} clusters: ${((performance.now() - t) / 100).toFixed(3)} ms`);
}
const t0 = performance.now();
const again = await assignCluster(db, { workspaceId, itemId: itemIds[0]!, vector: vectorOf(0), options: { threshold, space } });
console.log(`re-assign of an item: created=${again.created} (${(performance.now() - t0).toFixed(2)} ms)`);
await report('after incremental assignment', false);

started = performance.now();
const result = await recluster(db, store, workspaceId, { space, mergeThreshold });
console.log(`\nrecluster: ${JSON.stringify(result)} in ${((performance.now() - started) / 1000).toFixed(2)} s`);
await report('after recluster', true);

started = performance.now();
const refreshed = await refreshExpertise(db, workspaceId);
console.log(`\nexpertise: ${refreshed} actors refreshed in ${((performance.now() - started) / 1000).toFixed(2)} s; 10 most active authors:`);
for (const [login, count] of [...logins].sort((a, b) => b[1] - a[1]).slice(0, 10)) {
  const row = (await db.query<{ expertise_domains: string[]; item_count: number }>('SELECT expertise_domains, item_count FROM actors WHERE id = $1', [actorIdOf(workspaceId, login)])).rows[0];
  console.log(`  ${login} (${count} authored, ${row?.item_count} items): ${row?.expertise_domains.join(' | ') || '(none)'}`);
}
await db.close();

async function report(stage: string, detailed: boolean): Promise<void> {
  const clusters = (await db.query<{ id: string; topic: string; keywords: string[]; member_count: number; summary: string }>(
    'SELECT id, topic, keywords, member_count, summary FROM clusters WHERE workspace_id = $1 ORDER BY member_count DESC, id', [workspaceId])).rows;
  const members = (await db.query<{ item_id: string; cluster_id: string; similarity: number }>(
    'SELECT item_id, cluster_id, similarity FROM cluster_members WHERE workspace_id = $1 ORDER BY similarity DESC', [workspaceId])).rows;
  const clusterOf = new Map(members.map((m) => [m.item_id, m.cluster_id]));
  const sizes = clusters.map((c) => c.member_count);
  const buckets: [string, (s: number) => boolean][] = [['1', (s) => s === 1], ['2', (s) => s === 2], ['3-5', (s) => s >= 3 && s <= 5], ['6-10', (s) => s >= 6 && s <= 10], ['11-25', (s) => s >= 11 && s <= 25], ['26-100', (s) => s >= 26 && s <= 100], ['>100', (s) => s > 100]];
  console.log(`\n== ${stage}: ${clusters.length} clusters for ${members.length} items; sizes ${buckets.map(([l, f]) => `${l}: ${sizes.filter(f).length}`).join(', ')}; largest ${sizes.slice(0, 5).join(', ')}`);
  console.log(`   items in clusters of >= 3: ${(clusters.filter((c) => c.member_count >= 3).reduce((a, c) => a + c.member_count, 0) / members.length * 100).toFixed(1)}%`);
  // Ground truth: a squash commit and its pull request are the same change, so they should share a cluster.
  const idOf = new Map(corpus.map((item, i) => [item.id, itemIds[i]!]));
  const pairs = readJson<Link[]>('links.json').filter((l) => l.type === 'commit_pr' && idOf.has(l.source) && idOf.has(l.target));
  const together = pairs.filter((l) => clusterOf.get(idOf.get(l.source)!) === clusterOf.get(idOf.get(l.target)!)).length;
  let randomTogether = 0;
  for (let i = 0; i < 2000; i++) if (clusterOf.get(itemIds[Math.floor(random() * itemIds.length)]!) === clusterOf.get(itemIds[Math.floor(random() * itemIds.length)]!)) randomTogether++;
  console.log(`   commit/PR pairs sharing a cluster: ${together}/${pairs.length} (${(together / Math.max(1, pairs.length) * 100).toFixed(1)}%); random pairs: ${(randomTogether / 20).toFixed(1)}%`);
  if (!detailed) return;
  const byCluster = new Map<string, string[]>();
  for (const m of members) byCluster.set(m.cluster_id, [...(byCluster.get(m.cluster_id) ?? []), m.item_id]);
  const show = (c: (typeof clusters)[number]) => {
    console.log(`\n  [${c.member_count}] topic: ${c.topic}\n      keywords: ${c.keywords.join(', ')}\n      summary: ${c.summary}`);
    for (const id of (byCluster.get(c.id) ?? []).slice(0, 3)) console.log(`      - ${titles.get(id)}`);
  };
  console.log('\n 8 largest clusters:');
  clusters.slice(0, 8).forEach(show);
  const multi = clusters.filter((c) => c.member_count >= 2);
  console.log('\n 10 random clusters with >= 2 members:');
  for (let i = 0; i < 10 && multi.length > 0; i++) show(multi.splice(Math.floor(random() * multi.length), 1)[0]!);
}
