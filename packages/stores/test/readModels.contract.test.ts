/**
 * The query side's read models (similar, enrichment, graph, contents) on PGlite and, when DATABASE_URL names
 * one, server Postgres: the same answers on both, never another workspace's rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actorCards,
  actorsOf,
  addActorIdentities,
  clusterIdsOf,
  clusterMembership,
  clustersOf,
  clusterSummary,
  contentRows,
  danglingGithubRefs,
  edgesTouching,
  entityKeysOf,
  findItemId,
  graphNodes,
  insertActor,
  itemEntities,
  linkedItemIds,
  lockSyncCursor,
  createConnection,
  createSecretBox,
  pingDatabase,
  replaceItemActors,
  replaceItemEdges,
  replaceItemEntities,
  replaceItemRefs,
  startSyncCursor,
  upsertItem,
  type Db,
  type ItemRow,
} from '../src/index.js';
import { databaseBackends, openTestDatabase, testWorkspace } from '../src/testing/index.js';

const item = (ws: string, n: number, over: Partial<ItemRow> = {}): ItemRow => {
  const id = `obs_rm_${ws}_${n}`;
  return {
    id, workspaceId: ws, connectionId: null, source: 'github', type: 'pull_request', externalId: id, url: `https://github.com/o/r/pull/${n}`,
    title: `Item ${n}`, content: `content ${n}`, snippet: `snippet ${n}`, container: 'o/r', state: 'merged', labels: ['bug'], files: ['src/a.js'],
    actorNames: ['ada'], metadata: { n }, occurredAt: `2026-01-0${n}T00:00:00Z`, sourceUpdatedAt: '2026-01-01T00:00:00Z', contentHash: `h${n}`, ...over,
  };
};

describe.each(databaseBackends())('read models on $name', ({ url }) => {
  let db: Db;
  let ws: string;
  let other: string;
  const ids: string[] = [];
  const put = (row: ItemRow) => db.transaction((tx) => upsertItem(tx, row, { title: row.title ?? '', body: row.content, other: '', length: 2 }));

  beforeAll(async () => {
    db = await openTestDatabase(url);
    ws = await testWorkspace(db, 'rm');
    other = await testWorkspace(db, 'rm-other');
    for (const n of [1, 2, 3, 4]) {
      const row = item(ws, n);
      await put(row);
      ids.push(row.id);
    }
    // The same URL in another workspace, and a second item under item 1's URL (a later id).
    await put(item(other, 1));
    await put(item(ws, 5, { url: 'https://github.com/o/r/pull/1', id: `obs_rm_${ws}_9` }));
    await db.transaction(async (tx) => {
      await replaceItemEntities(tx, { workspaceId: ws, itemId: ids[0]!, entities: [
        { category: 'file', key: 'src/a.js', confidence: 1 },
        { category: 'keyword', key: 'parser', confidence: 0.6 },
        { category: 'person', key: 'ada', confidence: 1 },
      ] });
      await replaceItemEntities(tx, { workspaceId: ws, itemId: ids[1]!, entities: [{ category: 'file', key: 'src/a.js', confidence: 1 }] });
      // 1 -> 2: the PR and its squash commit; 1 -> 3: a reference.
      await replaceItemEdges(tx, { workspaceId: ws, itemId: ids[0]!, edges: [
        { sourceId: ids[0]!, targetId: ids[1]!, type: 'commit_pr', linkingKey: 'commit:abc', confidence: 1 },
        { sourceId: ids[0]!, targetId: ids[2]!, type: 'references', linkingKey: 'gh:o/r#3', confidence: 0.8 },
      ] });
      await replaceItemRefs(tx, { workspaceId: ws, itemId: ids[2]!, refs: [
        { key: 'gh:o/r#77', relation: 'fixes', confidence: 0.9 },
        { key: 'gh:o/r#4', relation: 'fixes', confidence: 0.9 },
      ] });
      await replaceItemRefs(tx, { workspaceId: ws, itemId: ids[3]!, refs: [{ key: 'gh:o/r#4', relation: 'key', confidence: 1 }] });
      await tx.query("INSERT INTO clusters (id, workspace_id, topic, summary, keywords, member_count) VALUES ($1, $2, 'parsing', 'About parsing', '{parser}', 2)", [`clu_${ws}`, ws]);
      await tx.query('INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity) VALUES ($1, $3, $4, 0.9), ($2, $3, $4, 0.8)', [ids[0], ids[1], `clu_${ws}`, ws]);
      await insertActor(tx, { id: `act_${ws}_ada`, workspaceId: ws, displayName: 'Ada', isBot: false });
      await insertActor(tx, { id: `act_${ws}_bot`, workspaceId: ws, displayName: 'renovate[bot]', isBot: true });
      // Indexed before the rule knew "bot" as a word: not flagged, but its name says automation.
      await insertActor(tx, { id: `act_${ws}_step`, workspaceId: ws, displayName: 'StepSecurity Bot', isBot: false });
      await addActorIdentities(tx, ws, `act_${ws}_ada`, [{ kind: 'login:github', value: 'ada' }]);
      await replaceItemActors(tx, { workspaceId: ws, itemId: ids[0]!, roles: [
        { actorId: `act_${ws}_ada`, role: 'author' },
        { actorId: `act_${ws}_bot`, role: 'commenter' },
        { actorId: `act_${ws}_step`, role: 'reviewer' },
      ] });
    });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('finds an item by id or by url (the lowest id under a url), only in its workspace', async () => {
    expect(await findItemId(db, ws, { id: ids[0]! })).toBe(ids[0]);
    expect(await findItemId(db, other, { id: ids[0]! })).toBeNull();
    expect(await findItemId(db, ws, { url: 'https://github.com/o/r/pull/1' })).toBe(ids[0]);
    expect(await findItemId(db, ws, { url: 'https://github.com/o/r/pull/404' })).toBeNull();
  });

  it('reads non-person entity keys and clusters per item', async () => {
    const keys = await entityKeysOf(db, ids);
    expect([...(keys.get(ids[0]!) ?? [])].sort()).toEqual(['file:src/a.js', 'keyword:parser']);
    expect([...(keys.get(ids[1]!) ?? [])]).toEqual(['file:src/a.js']);
    expect(keys.has(ids[2]!)).toBe(false);
    const clusters = await clusterIdsOf(db, ids);
    expect(Object.fromEntries(clusters)).toEqual({ [ids[0]!]: `clu_${ws}`, [ids[1]!]: `clu_${ws}` });
    expect(await clusterSummary(db, `clu_${ws}`)).toEqual({ topic: 'parsing', memberCount: 2 });
    expect(await clusterSummary(db, 'clu_missing')).toBeNull();
  });

  it('reads every cluster member of the workspace, cluster by cluster, whatever the page size', async () => {
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO clusters (id, workspace_id, topic, member_count) VALUES ($1, $2, 'docs', 1)", [`clu_${ws}_b`, ws]);
      await tx.query('INSERT INTO cluster_members (item_id, cluster_id, workspace_id, similarity) VALUES ($1, $2, $3, 0.5)', [ids[2], `clu_${ws}_b`, ws]);
    });
    try {
      const sorted = (rows: Awaited<ReturnType<typeof clusterMembership>>) =>
        rows.map((r) => ({ ...r, members: r.ids.map((id, i) => [id, Math.round(r.similarities[i]! * 10) / 10]).sort() })).map(({ clusterId, members }) => ({ clusterId, members })).sort((a, b) => (a.clusterId < b.clusterId ? -1 : 1));
      const whole = sorted(await clusterMembership(db, ws));
      expect(whole).toEqual([
        { clusterId: `clu_${ws}`, members: [[ids[0], 0.9], [ids[1], 0.8]] },
        { clusterId: `clu_${ws}_b`, members: [[ids[2], 0.5]] },
      ]);
      // A page per cluster: two statements, the same members.
      expect(sorted(await clusterMembership(db, ws, 1))).toEqual(whole);
      expect(await clusterMembership(db, other)).toEqual([]);
    } finally {
      await db.query('DELETE FROM clusters WHERE id = $1', [`clu_${ws}_b`]);
    }
  });

  it('splits links into the same change (commit_pr) and related items, from either end', async () => {
    expect(await linkedItemIds(db, ids[0]!, 'sameChange')).toEqual([ids[1]]);
    expect(await linkedItemIds(db, ids[1]!, 'sameChange')).toEqual([ids[0]]);
    expect(await linkedItemIds(db, ids[0]!, 'related')).toEqual([ids[2]]);
    expect(await linkedItemIds(db, ids[2]!, 'related')).toEqual([ids[0]]);
  });

  it('enriches a page: entities most confident first, clusters and people without bots', async () => {
    const ents = await itemEntities(db, [ids[0]!], 2);
    // Confidence 1 before 0.6: the keyword is cut by perItem 2.
    expect(ents.get(ids[0]!)?.map((e) => e.key).sort()).toEqual(['ada', 'src/a.js']);
    expect(await itemEntities(db, [])).toEqual(new Map());
    expect(await clustersOf(db, [ids[1]!])).toEqual([{ id: `clu_${ws}`, topic: 'parsing', summary: 'About parsing', keywords: ['parser'], memberCount: 2 }]);
    expect((await actorsOf(db, [ids[0]!])).map((a) => a.displayName)).toEqual(['Ada']);
    // The snapshot the search context reads says the same: both automation accounts are bots.
    const cards = (await actorCards(db, ws)).filter((a) => a.isBot).map((a) => a.displayName).sort();
    expect(cards).toEqual(['StepSecurity Bot', 'renovate[bot]']);
  });

  it('reads the graph: nodes of the workspace, edges strongest first filtered by type, dangling fixes refs', async () => {
    const nodes = await graphNodes(db, ws, [ids[0]!, ids[2]!, `obs_rm_${other}_1`]);
    expect([...nodes.keys()].sort()).toEqual([ids[0], ids[2]].sort());
    const edges = await edgesTouching(db, ws, [ids[0]!], undefined);
    expect(edges.map((e) => [e.type, e.target_id])).toEqual([['commit_pr', ids[1]], ['references', ids[2]]]);
    expect((await edgesTouching(db, ws, [ids[0]!], ['references'])).map((e) => e.type)).toEqual(['references']);
    expect(await edgesTouching(db, other, [ids[0]!], undefined)).toEqual([]);
    // #4 is held by item 4 as an identity key: only #77 dangles.
    const refs = await danglingGithubRefs(db, ws, [ids[2]!], 'fixes');
    expect(refs.map((r) => r.key)).toEqual(['gh:o/r#77']);
    expect(await danglingGithubRefs(db, ws, [], 'fixes')).toEqual([]);
  });

  it('reads content rows of the workspace only', async () => {
    const rows = await contentRows(db, ws, [ids[0]!, `obs_rm_${other}_1`, 'obs_unknown']);
    expect(rows.map((r) => r.id)).toEqual([ids[0]]);
    expect(rows[0]).toMatchObject({ title: 'Item 1', content: 'content 1', labels: ['bug'], files: ['src/a.js'], actor_names: ['ada'], metadata: { n: 1 } });
    expect(await contentRows(db, ws, [])).toEqual([]);
  });

  it('locks a sync cursor inside a transaction and reads it; null for none; pings', async () => {
    const conn = await createConnection(db, createSecretBox('read-model-test-secret-0123456789'), { workspaceId: ws, provider: 'github', token: 't', config: { repo: 'o/r' } });
    await startSyncCursor(db, { connectionId: conn.id, stream: 'pull_requests', mode: 'backfill', since: null });
    const locked = await db.transaction((tx) => lockSyncCursor(tx, conn.id, 'pull_requests', 'backfill'));
    expect(locked).toMatchObject({ connectionId: conn.id, state: 'running', pages: 0 });
    expect(await db.transaction((tx) => lockSyncCursor(tx, conn.id, 'issues', 'backfill'))).toBeNull();
    expect(await pingDatabase(db)).toBe(true);
  });
});
