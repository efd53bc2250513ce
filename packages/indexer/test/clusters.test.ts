import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgVectorStore, type Db, type VectorStore } from '@engram/stores';
import { openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { centroidHex } from '@engram/stores';
import { OFF_THREAD_MIN_ROWS } from '../src/clusters/centroidRows.js';
import { DEFAULT_FEATURE_SPACE, assignCluster, assignClusters, recluster, topicFeature } from '../src/clusters/index.js';
import { insertFixtureItem, type FixtureItem } from '../src/testing/clusterFixtures.js';

const DIMENSIONS = 32;

/** A deterministic unit vector near `topic` (0..n): the same topic gives cosines around 0.98. */
function vectorFor(topic: number, jitter: number): number[] {
  const v = Array.from({ length: DIMENSIONS }, (_, i) => (i === topic ? 1 : 0) + 0.03 * Math.sin((jitter + 1) * (i + 1) * 1.7));
  const length = Math.hypot(...v);
  return v.map((x) => x / length);
}

const CSS_FIXES: FixtureItem[] = [
  { externalId: 'pr:1', type: 'pull_request', title: 'Fix formatting of CSS custom properties', files: ['src/language-css/printer-postcss.js', 'tests/format/css/custom-properties/jsfmt.spec.js'] },
  { externalId: 'pr:2', type: 'pull_request', title: 'Keep comments inside CSS selectors', files: ['src/language-css/parser-postcss.js', 'tests/format/css/comments/selectors.css'] },
  { externalId: 'pr:3', type: 'pull_request', title: 'Fix CSS grid template areas indentation', files: ['src/language-css/printer-postcss.js', 'tests/format/css/grid/grid.css'] },
  { externalId: 'pr:4', type: 'pull_request', title: 'Preserve empty lines in SCSS maps', files: ['src/language-css/printer-postcss.js', 'tests/format/scss/map/maps.scss'] },
];
const BUMPS: FixtureItem[] = [
  { externalId: 'pr:11', type: 'pull_request', title: 'Update dependency @babel/parser to v7.26.3', files: ['package.json', 'yarn.lock'], labels: ['dependencies'] },
  { externalId: 'pr:12', type: 'pull_request', title: 'Update dependency postcss-less to v6.0.1', files: ['package.json', 'yarn.lock'], labels: ['dependencies'] },
  { externalId: 'pr:13', type: 'pull_request', title: 'Update dependency typescript to v5.7.2', files: ['package.json', 'yarn.lock'], labels: ['dependencies'] },
  { externalId: 'pr:14', type: 'pull_request', title: 'Update dependency eslint to v9.16.0', files: ['package.json', 'yarn.lock'], labels: ['dependencies'] },
];
// A series of the same bump: near-identical text and the same files, package and label.
const OXC_BUMPS: FixtureItem[] = ['0.98.0', '0.110.0', '0.118.0', '0.128.0'].map((version, i) => ({
  externalId: `pr:2${i}`, type: 'pull_request', title: `Update dependency oxc-parser to v${version}`, files: ['package.json', 'yarn.lock'], labels: ['dependencies'],
}));

let db: Db;
let vectors: VectorStore;

beforeAll(async () => {
  db = await openTestDatabase('pglite://memory');
  vectors = await createPgVectorStore(db);
  await vectors.ensureCollection({ model: 'test-clusters', dimensions: DIMENSIONS });
});
afterAll(async () => db.close());

async function load(workspaceId: string, items: FixtureItem[], topic: number): Promise<{ id: string; vector: number[] }[]> {
  const out: { id: string; vector: number[] }[] = [];
  for (const [i, item] of items.entries()) {
    const id = await insertFixtureItem(db, workspaceId, { ...item, actors: [{ login: 'alice', role: 'author' }] });
    const vector = vectorFor(topic, i);
    await vectors.upsert([{ id, itemId: id, workspaceId, vector, source: 'github', type: item.type, occurredAt: new Date().toISOString(), actorNames: [] }]);
    out.push({ id, vector });
  }
  return out;
}

const clustersOf = async (workspaceId: string) =>
  (await db.query<{ id: string; member_count: number; keywords: string[]; topic: string; summary: string }>(
    'SELECT id, member_count, keywords, topic, summary FROM clusters WHERE workspace_id = $1 ORDER BY member_count DESC', [workspaceId])).rows;
const memberCount = async (clusterId: string) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM cluster_members WHERE cluster_id = $1', [clusterId])).rows[0]?.n;

describe('assignCluster', () => {
  it('puts near-identical items in one cluster and seeds another for an unrelated one', async () => {
    const ws = await testWorkspace(db);
    const css = await load(ws, CSS_FIXES, 0);
    const [bump] = await load(ws, BUMPS.slice(0, 1), 9);
    const results = [];
    for (const item of css) results.push(await assignCluster(db, { workspaceId: ws, itemId: item.id, vector: item.vector }));
    const unrelated = await assignCluster(db, { workspaceId: ws, itemId: bump!.id, vector: bump!.vector });

    expect(results.map((r) => r.created)).toEqual([true, false, false, false]);
    expect(new Set(results.map((r) => r.clusterId)).size).toBe(1);
    expect(unrelated.created).toBe(true);
    expect(unrelated.clusterId).not.toBe(results[0]!.clusterId);
    const clusters = await clustersOf(ws);
    expect(clusters.map((c) => c.member_count)).toEqual([4, 1]);
    // A seeded cluster is labelled from its first member until the next recluster.
    expect(clusters[1]!.topic).toContain('babel/parser');
  });

  it('is idempotent: re-assigning keeps the cluster and never counts an item twice', async () => {
    const ws = await testWorkspace(db);
    const css = await load(ws, CSS_FIXES, 0);
    const first = [];
    for (const item of css) first.push(await assignCluster(db, { workspaceId: ws, itemId: item.id, vector: item.vector }));
    for (const item of css) {
      const again = await assignCluster(db, { workspaceId: ws, itemId: item.id, vector: item.vector });
      expect(again).toEqual({ clusterId: first[0]!.clusterId, created: false });
    }
    // Two deliveries of a new item racing each other still add it once.
    const [late] = await load(ws, [{ externalId: 'pr:5', type: 'pull_request', title: 'Fix CSS comment at end of rule', files: ['src/language-css/printer-postcss.js'] }], 0);
    await Promise.all([1, 2, 3].map(() => assignCluster(db, { workspaceId: ws, itemId: late!.id, vector: late!.vector })));
    const [cluster] = await clustersOf(ws);
    expect(cluster!.member_count).toBe(5);
    expect(await memberCount(cluster!.id)).toBe(5);
  });

  it('moves a re-embedded item only when another cluster is clearly closer, keeping both counts right', async () => {
    const ws = await testWorkspace(db);
    const css = await load(ws, CSS_FIXES, 0);
    const bumps = await load(ws, OXC_BUMPS, 3);
    for (const item of [...css, ...bumps]) await assignCluster(db, { workspaceId: ws, itemId: item.id, vector: item.vector });
    const [cssCluster, bumpCluster] = [(await assignCluster(db, { workspaceId: ws, itemId: css[0]!.id, vector: css[0]!.vector })).clusterId,
      (await assignCluster(db, { workspaceId: ws, itemId: bumps[0]!.id, vector: bumps[0]!.vector })).clusterId];
    expect(cssCluster).not.toBe(bumpCluster);

    // The item's content changed: its new text reads like the bumps and it no longer has its CSS entities.
    const moved = await assignCluster(db, { workspaceId: ws, itemId: css[3]!.id, vector: vectorFor(3, 7), entities: [] });
    expect(moved).toEqual({ clusterId: bumpCluster, created: false });
    const counts = Object.fromEntries((await clustersOf(ws)).map((c) => [c.id, c.member_count]));
    expect(counts).toEqual({ [cssCluster]: 3, [bumpCluster]: 5 });
    expect(await memberCount(cssCluster)).toBe(3);
    expect(await memberCount(bumpCluster)).toBe(5);
  });
});

describe('assignClusters', () => {
  it('places a batch as assigning its items one by one would, and re-assigning the batch changes nothing', async () => {
    const [single, batch] = [await testWorkspace(db), await testWorkspace(db)];
    const mixed = async (ws: string) => [...(await load(ws, CSS_FIXES, 0)), ...(await load(ws, BUMPS, 9)), ...(await load(ws, OXC_BUMPS, 3))];
    const one: { created: boolean }[] = [];
    for (const item of await mixed(single)) one.push(await assignCluster(db, { workspaceId: single, itemId: item.id, vector: item.vector }));
    const items = await mixed(batch);
    const many = await assignClusters(db, batch, items.map((i) => ({ itemId: i.id, vector: i.vector })));
    expect(many.map((a) => a.created)).toEqual(one.map((a) => a.created));
    const shape = async (ws: string) => (await clustersOf(ws)).map((c) => `${c.member_count} ${c.topic}`).sort();
    expect(await shape(batch)).toEqual(await shape(single));
    const again = await assignClusters(db, batch, items.map((i) => ({ itemId: i.id, vector: i.vector })));
    expect(again).toEqual(many.map((a) => ({ ...a, created: false })));
  });

  it('writes nothing of a batch that lost a race with another writer, and then places it one by one with counts that match the members', async () => {
    const ws = await testWorkspace(db);
    const css = await load(ws, CSS_FIXES, 0);
    const bumps = await load(ws, BUMPS, 9);
    // This process warms its centroid cache with the first two of each topic.
    await assignClusters(db, ws, [...css.slice(0, 2), ...bumps.slice(0, 2)].map((i) => ({ itemId: i.id, vector: i.vector })));
    // Another process (its own handle, so its own cache) joins the same clusters: their versions move.
    const other = { ...db };
    await assignClusters(other, ws, [css[2]!, bumps[2]!].map((i) => ({ itemId: i.id, vector: i.vector })));
    // This process's cached versions are stale now: the batch write must lose, then go one by one.
    const last = await assignClusters(db, ws, [css[3]!, bumps[3]!].map((i) => ({ itemId: i.id, vector: i.vector })));
    expect(last.map((a) => a.created)).toEqual([false, false]);
    const rows = await clustersOf(ws);
    expect(rows.map((c) => c.member_count)).toEqual([4, 4]);
    for (const c of rows) expect(await memberCount(c.id)).toBe(c.member_count);
  });
});

describe('assignClusters, batches called together', () => {
  const shape = async (ws: string) => (await clustersOf(ws)).map((c) => `${c.member_count} ${c.topic}`).sort();
  const centroids = async (ws: string) =>
    (await db.query<{ n: number; c: string }>("SELECT member_count AS n, encode(centroid, 'hex') AS c FROM clusters WHERE workspace_id = $1 ORDER BY 2", [ws])).rows;

  it('places batches called together as the same batches one after another, to the same centroids', async () => {
    const [serial, together] = [await testWorkspace(db), await testWorkspace(db)];
    const mixed = async (ws: string) => [...(await load(ws, CSS_FIXES, 0)), ...(await load(ws, BUMPS, 9)), ...(await load(ws, OXC_BUMPS, 3))];
    const batchesOf = (items: { id: string; vector: number[] }[]) =>
      [items.slice(0, 3), items.slice(3, 7), items.slice(7, 9), items.slice(9)].map((b) => b.map((i) => ({ itemId: i.id, vector: i.vector })));
    const one: { created: boolean }[][] = [];
    for (const batch of batchesOf(await mixed(serial))) one.push(await assignClusters(db, serial, batch));
    // Each batch reads its items' states before its turn; the turns keep the order of the calls.
    const many = await Promise.all(batchesOf(await mixed(together)).map((batch) => assignClusters(db, together, batch)));
    expect(many.map((b) => b.map((a) => a.created))).toEqual(one.map((b) => b.map((a) => a.created)));
    expect(await shape(together)).toEqual(await shape(serial));
    expect((await centroids(together)).map((r) => `${r.n} ${r.c}`)).toEqual((await centroids(serial)).map((r) => `${r.n} ${r.c}`));
    for (const c of await clustersOf(together)) expect(await memberCount(c.id)).toBe(c.member_count);
  });
});

describe('assignClusters over thousands of centroids', () => {
  // More clusters than OFF_THREAD_MIN_ROWS: the first passes come from the scan thread, and a batch waiting
  // for its turn takes them ahead, before the batches in front of it move the rows.
  const SEEDED = OFF_THREAD_MIN_ROWS + 100;
  const WIDTH = DIMENSIONS + DEFAULT_FEATURE_SPACE.entityDimensions;
  const TOPICS = ['CSS selectors', 'Markdown lists', 'YAML comments', 'JSX attributes', 'dependency bumps'];

  /** The same clusters in each workspace: some near the items' topics (text part), the rest scattered. */
  async function seedClusters(workspaceId: string): Promise<void> {
    let state = 7;
    const random = () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) - 0.5;
    const centroids = Array.from({ length: SEEDED }, (_, k) => {
      // One in 40 is an item of one of the first three topics by its text alone; the other two have none.
      const near = k % 40 === 0 && (k / 40) % TOPICS.length < 3 ? topicFeature(vectorFor((k / 40) % TOPICS.length, 1_000 + k), []) : null;
      return centroidHex(Float32Array.from({ length: WIDTH }, (_, i) => (near ? near[i]! + 0.01 * random() : 0.2 * random())));
    });
    await db.query(
      `INSERT INTO clusters (id, workspace_id, topic, summary, keywords, member_count, centroid, updated_at)
       SELECT $1 || ':seed:' || u.k, $1, 'seeded', '', '{}', 4, decode(u.c, 'hex'), clock_timestamp()
       FROM unnest($2::int[], $3::text[]) AS u(k, c)`,
      [workspaceId, centroids.map((_, k) => k), centroids],
    );
  }

  const items: FixtureItem[] = Array.from({ length: 40 }, (_, i) => ({
    externalId: `pr:${500 + i}`, type: 'pull_request', title: `Fix ${TOPICS[i % TOPICS.length]} case ${i}`, files: [`src/${i % TOPICS.length}/printer.js`],
  }));
  const loadItems = async (ws: string) => {
    const out: { id: string; vector: number[] }[] = [];
    for (const [i, item] of items.entries()) out.push({ id: await insertFixtureItem(db, ws, { ...item, actors: [{ login: 'alice', role: 'author' }] }), vector: vectorFor(i % TOPICS.length, i) });
    return out;
  };
  /** Each item's cluster, by the seed's number, or by the item that first joined a cluster the assignments made. */
  const placements = async (ws: string, ids: string[]) => {
    const rows = (await db.query<{ item_id: string; cluster_id: string }>('SELECT item_id, cluster_id FROM cluster_members WHERE workspace_id = $1', [ws])).rows;
    const clusterOf = new Map(rows.map((r) => [r.item_id, r.cluster_id]));
    const firstMember = new Map<string, number>();
    return ids.map((id, i) => {
      const cluster = clusterOf.get(id)!;
      if (cluster.startsWith(`${ws}:seed:`)) return cluster.slice(ws.length + 1);
      if (!firstMember.has(cluster)) firstMember.set(cluster, i);
      return `made by ${firstMember.get(cluster)}`;
    });
  };

  it('places batches waiting for their turn as assigning their items one by one would', async () => {
    const [single, together] = [await testWorkspace(db), await testWorkspace(db)];
    for (const ws of [single, together]) await seedClusters(ws);
    const one = await loadItems(single);
    for (const item of one) await assignCluster(db, { workspaceId: single, itemId: item.id, vector: item.vector });
    const many = await loadItems(together);
    const batch = (from: number, to: number) => many.slice(from, to).map((i) => ({ itemId: i.id, vector: i.vector }));
    // The first batch loads the workspace's centroids; the three after it (the first two chunks long) wait together.
    await assignClusters(db, together, batch(0, 1));
    await Promise.all([batch(1, 21), batch(21, 33), batch(33, 40)].map((b) => assignClusters(db, together, b)));
    const expected = await placements(single, one.map((i) => i.id));
    expect(await placements(together, many.map((i) => i.id))).toEqual(expected);
    // Some items joined seeded clusters, some joined clusters the assignments made.
    expect(expected.some((p) => p.startsWith('seed:'))).toBe(true);
    expect(new Set(expected.filter((p) => p.startsWith('made by'))).size).toBeLessThan(expected.filter((p) => p.startsWith('made by')).length);
  });
});

describe('recluster', () => {
  it('merges clusters whose centroids are close', async () => {
    const ws = await testWorkspace(db);
    const bumps = await load(ws, OXC_BUMPS, 3);
    // A threshold above any cosine here makes every item seed its own cluster.
    for (const item of bumps) await assignCluster(db, { workspaceId: ws, itemId: item.id, vector: item.vector, options: { threshold: 1.01 } });
    expect(await clustersOf(ws)).toHaveLength(4);

    const result = await recluster(db, vectors, ws);
    expect(result).toMatchObject({ clusters: 1, merged: 3 });
    const [cluster] = await clustersOf(ws);
    expect(cluster!.member_count).toBe(4);
    expect(await memberCount(cluster!.id)).toBe(4);
    expect(cluster!.keywords).toContain('oxc-parser');
    // The centroid cache was invalidated: the next bump joins the merged cluster.
    const [late] = await load(ws, [{ ...OXC_BUMPS[0]!, externalId: 'pr:30', title: 'Update dependency oxc-parser to v0.135.0' }], 3);
    expect(await assignCluster(db, { workspaceId: ws, itemId: late!.id, vector: late!.vector })).toEqual({ clusterId: cluster!.id, created: false });
  });

  it('splits an incoherent cluster and labels each part from its members', async () => {
    const ws = await testWorkspace(db);
    const css = await load(ws, CSS_FIXES, 0);
    const bumps = await load(ws, BUMPS, 9);
    // A threshold below any cosine puts CSS fixes and dependency bumps in one cluster.
    for (const item of [...css, ...bumps]) await assignCluster(db, { workspaceId: ws, itemId: item.id, vector: item.vector, options: { threshold: -1 } });
    expect((await clustersOf(ws)).map((c) => c.member_count)).toEqual([8]);

    const result = await recluster(db, vectors, ws);
    expect(result).toMatchObject({ clusters: 2, split: 1 });
    const clusters = await clustersOf(ws);
    expect(clusters.map((c) => c.member_count)).toEqual([4, 4]);
    const byMember = await db.query<{ cluster_id: string; title: string }>(
      'SELECT m.cluster_id, i.title FROM cluster_members m JOIN items i ON i.id = m.item_id WHERE m.workspace_id = $1', [ws]);
    const cssCluster = byMember.rows.find((r) => r.title.includes('CSS custom properties'))!.cluster_id;
    const bumpCluster = byMember.rows.find((r) => r.title.includes('@babel/parser'))!.cluster_id;
    expect(cssCluster).not.toBe(bumpCluster);
    const css_ = clusters.find((c) => c.id === cssCluster)!;
    const bump_ = clusters.find((c) => c.id === bumpCluster)!;
    expect(css_.keywords).toContain('src/language-css');
    expect(css_.keywords).toContain('css');
    expect(bump_.keywords).toContain('dependencies');
    expect(bump_.keywords).not.toContain('src/language-css');
    expect(css_.summary).not.toBe('');
  });

  it('writes the summary with the given summarizer', async () => {
    const ws = await testWorkspace(db);
    const css = await load(ws, CSS_FIXES, 0);
    for (const item of css) await assignCluster(db, { workspaceId: ws, itemId: item.id, vector: item.vector });
    const seen: string[][] = [];
    await recluster(db, vectors, ws, { summarize: async (titles) => (seen.push(titles), `Summary of ${titles.length} CSS fixes`) });
    expect(seen[0]).toHaveLength(4);
    expect((await clustersOf(ws))[0]!.summary).toBe('Summary of 4 CSS fixes');
  });
});
