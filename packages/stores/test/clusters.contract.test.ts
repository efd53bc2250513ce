import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyReclusterStage,
  compareAndJoin,
  countWorkspaceItems,
  deleteCluster,
  dropStaleReclusterStages,
  getAreaCounts,
  getAreaModelVersion,
  insertSeedCluster,
  listChangesPage,
  listClusterCentroids,
  listClusterMembersPage,
  listItemMentions,
  listItemTitles,
  lockCluster,
  newReclusterRun,
  publishAreaModel,
  pruneAreaModels,
  readItemClusterState,
  RECLUSTER_REWRITTEN_TABLES,
  refreshPlannerStatsByTable,
  replaceAreaModel,
  replaceItemEdges,
  replaceItemEntities,
  ROOT_AREA,
  stageClusterMembers,
  stageClusters,
  startAreaModel,
  upsertClusterMember,
  upsertItem,
  writeAreas,
  writeAreaTerms,
  writeClusterCentroid,
  type AreaModelColumns,
  type Db,
} from '../src/index.js';
import { databaseBackends, openTestDatabase, randomSuffix, testWorkspace } from '../src/testing/index.js';

/** An area model from its (term, area, changes) rows, as the columns name them. */
function areaModel(changes: number, areas: [string, number][], rows: [string, string, number][]): AreaModelColumns {
  const areaNames = areas.map((a) => a[0]);
  const termNames = [...new Set(rows.map((r) => r[0]))];
  return {
    changes,
    areaNames,
    areaChanges: areas.map((a) => a[1]),
    termNames,
    termOf: rows.map((r) => termNames.indexOf(r[0])),
    termArea: rows.map((r) => areaNames.indexOf(r[1])),
    termChanges: rows.map((r) => r[2]),
  };
}

const labels = (topic: string) => ({ topic, summary: `${topic} summary`, keywords: [topic, 'shared'] });

describe.each(databaseBackends())('cluster and area repositories on $name', ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDatabase(url);
  });
  afterAll(async () => {
    await db?.close();
  });

  async function item(ws: string, n: number, over: { title?: string; type?: string; files?: string[] } = {}): Promise<string> {
    const id = `obs_${ws}_${String(n).padStart(3, '0')}`;
    await db.transaction((tx) =>
      upsertItem(
        tx,
        {
          id, workspaceId: ws, connectionId: null, source: 'github', type: over.type ?? 'pull_request', externalId: `pr:${n}`, url: `https://example.com/${n}`,
          title: over.title ?? `Change ${n}`, content: `Change ${n}\n\nbody`, snippet: `first line ${n}\nsecond`, container: 'o/r', state: null, labels: [],
          files: over.files ?? [], actorNames: [], metadata: {}, occurredAt: '2026-01-01T00:00:00Z', sourceUpdatedAt: '2026-01-01T00:00:00Z', contentHash: `h${n}`,
        },
        { title: '', body: '', other: '', length: 1 },
      ),
    );
    return id;
  }

  describe('incremental assignment', () => {
    it('seeds a cluster with one member, once: a second seed for the same item writes nothing', async () => {
      const ws = await testWorkspace(db);
      const a = await item(ws, 1);
      const first = `clu_${randomSuffix()}`;
      const version = await insertSeedCluster(db, { workspaceId: ws, itemId: a, clusterId: first, centroid: [0.5, 0.123456789], labels: labels('css') });
      expect(version).toEqual(expect.any(String));
      expect(await insertSeedCluster(db, { workspaceId: ws, itemId: a, clusterId: `clu_${randomSuffix()}`, centroid: [1, 0], labels: labels('x') })).toBeNull();
      const [row] = await listClusterCentroids(db, ws);
      expect(row).toMatchObject({ id: first, memberCount: 1, version });
      // Centroids are stored as float4, rounded to 5 decimals.
      expect(Array.from(row!.centroid!)).toEqual([0.5, Math.fround(0.12346)]);
    });

    it('joins only at the version read: a stale version changes nothing, a member already placed is reported', async () => {
      const ws = await testWorkspace(db);
      const [a, b, c] = [await item(ws, 1), await item(ws, 2), await item(ws, 3)];
      const id = `clu_${randomSuffix()}`;
      const v1 = (await insertSeedCluster(db, { workspaceId: ws, itemId: a, clusterId: id, centroid: [1, 0], labels: labels('css') }))!;
      const joined = await compareAndJoin(db, { workspaceId: ws, itemId: b, clusterId: id, version: v1, centroid: [0.9, 0.1], count: 2, similarity: 0.8 });
      expect(joined.kind).toBe('joined');
      expect(await compareAndJoin(db, { workspaceId: ws, itemId: c, clusterId: id, version: v1, centroid: [0, 1], count: 3, similarity: 0.1 })).toEqual({ kind: 'stale' });
      const v2 = (joined as { version: string }).version;
      expect((await compareAndJoin(db, { workspaceId: ws, itemId: b, clusterId: id, version: v2, centroid: [0.9, 0.1], count: 3, similarity: 0.8 })).kind).toBe('already_member');
      const state = await readItemClusterState(db, ws, c, ['path']);
      expect(state).toEqual({ currentClusterId: null, clusterCount: 1, title: 'Change 3', mentions: [] });
      expect((await readItemClusterState(db, ws, b, ['path'])).currentClusterId).toBe(id);
    });

    it('moves a member under a row lock and drops a cluster', async () => {
      const ws = await testWorkspace(db);
      const [a, b] = [await item(ws, 1), await item(ws, 2)];
      const [x, y] = [`clu_${randomSuffix()}`, `clu_${randomSuffix()}`];
      await insertSeedCluster(db, { workspaceId: ws, itemId: a, clusterId: x, centroid: [1, 0], labels: labels('x') });
      await insertSeedCluster(db, { workspaceId: ws, itemId: b, clusterId: y, centroid: [0, 1], labels: labels('y') });
      await db.transaction(async (tx) => {
        const locked = await lockCluster(tx, y);
        expect(locked).toEqual({ centroid: Float32Array.from([0, 1]), count: 1 });
        await writeClusterCentroid(tx, y, [0.5, 0.5], 2);
        await upsertClusterMember(tx, ws, a, y, 0.7);
        await deleteCluster(tx, x);
      });
      expect(await lockCluster(db, x)).toBeNull();
      expect(await listClusterCentroids(db, ws)).toEqual([expect.objectContaining({ id: y, memberCount: 2 })]);
      expect(await listClusterMembersPage(db, ws, '', 10)).toEqual([
        { itemId: a, clusterId: y },
        { itemId: b, clusterId: y },
      ]);
    });
  });

  describe('the re-cluster job', () => {
    it('reads members, entity mentions and titles in pages', async () => {
      const ws = await testWorkspace(db);
      const ids: string[] = [];
      for (let n = 1; n <= 5; n++) ids.push(await item(ws, n, { title: n === 4 ? '' : `Change ${n}` }));
      const id = `clu_${randomSuffix()}`;
      await insertSeedCluster(db, { workspaceId: ws, itemId: ids[0]!, clusterId: id, centroid: [1], labels: labels('x') });
      for (const other of ids.slice(1)) await db.transaction((tx) => upsertClusterMember(tx, ws, other, id, 0.5));
      const first = await listClusterMembersPage(db, ws, '', 2);
      const second = await listClusterMembersPage(db, ws, first[1]!.itemId, 2);
      const third = await listClusterMembersPage(db, ws, second[1]!.itemId, 2);
      expect([...first, ...second, ...third].map((m) => m.itemId)).toEqual(ids);
      expect(third).toHaveLength(1);

      await db.transaction((tx) => replaceItemEntities(tx, { workspaceId: ws, itemId: ids[0]!, entities: [{ category: 'path', key: 'src/a.js', confidence: 1 }, { category: 'person', key: 'alice', confidence: 1 }] }));
      await db.transaction((tx) => replaceItemEntities(tx, { workspaceId: ws, itemId: ids[1]!, entities: [{ category: 'path', key: 'src/a.js', confidence: 0.5 }] }));
      const mentions = await listItemMentions(db, ids, ['path']);
      expect(Object.fromEntries(mentions)).toEqual({
        [ids[0]!]: [{ category: 'path', key: 'src/a.js', confidence: 1, df: 2 }],
        [ids[1]!]: [{ category: 'path', key: 'src/a.js', confidence: 0.5, df: 2 }],
      });
      // Each item's mentions in (category, key) order, whatever order they were written in; items naming none of the categories are absent.
      await db.transaction((tx) =>
        replaceItemEntities(tx, {
          workspaceId: ws,
          itemId: ids[2]!,
          entities: [
            { category: 'label', key: 'zeta', confidence: 0.9 },
            { category: 'path', key: 'src/b.js', confidence: 0.25 },
            { category: 'path', key: 'src/a.js', confidence: 0.75 },
            { category: 'label', key: 'alpha', confidence: 1 },
            { category: 'person', key: 'bob', confidence: 1 },
          ],
        }),
      );
      const ordered = await listItemMentions(db, ids, ['path', 'label']);
      expect(ordered.get(ids[2]!)).toEqual([
        { category: 'label', key: 'alpha', confidence: 1, df: 1 },
        { category: 'label', key: 'zeta', confidence: 0.9, df: 1 },
        { category: 'path', key: 'src/a.js', confidence: 0.75, df: 3 },
        { category: 'path', key: 'src/b.js', confidence: 0.25, df: 1 },
      ]);
      expect([...(await listItemMentions(db, ids, ['person'])).keys()].sort()).toEqual([ids[0]!, ids[2]!].sort());
      // An item without a title is named by its snippet's first line.
      expect((await listItemTitles(db, ids.slice(2, 4))).get(ids[3]!)).toEqual({ title: 'first line 4', snippet: 'first line 4\nsecond' });
      expect(await countWorkspaceItems(db, ws)).toBe(5);
    });

    it('swaps a staged run in: new and updated clusters, moved members, merged-away clusters redirected, empty ones dropped', async () => {
      const ws = await testWorkspace(db);
      const ids: string[] = [];
      for (let n = 1; n <= 4; n++) ids.push(await item(ws, n));
      const [keep, merged, emptied] = [`clu_${randomSuffix()}`, `clu_${randomSuffix()}`, `clu_${randomSuffix()}`];
      await insertSeedCluster(db, { workspaceId: ws, itemId: ids[0]!, clusterId: keep, centroid: [1, 0], labels: labels('keep') });
      await insertSeedCluster(db, { workspaceId: ws, itemId: ids[1]!, clusterId: merged, centroid: [0, 1], labels: labels('merged') });
      await insertSeedCluster(db, { workspaceId: ws, itemId: ids[2]!, clusterId: emptied, centroid: [1, 1], labels: labels('emptied') });
      // A member the run did not see (no vector): it follows its cluster into the merge.
      await db.transaction((tx) => upsertClusterMember(tx, ws, ids[3]!, merged, 0.2));

      const run = newReclusterRun();
      const fresh = `clu_${randomSuffix()}`;
      await stageClusters(db, run, ws, [
        { id: keep, ...labels('kept and relabelled'), centroid: [0.6, 0.4] },
        { id: fresh, ...labels('split off'), centroid: [0.2, 0.8] },
      ]);
      await stageClusterMembers(db, run, ws, [
        { itemId: ids[0]!, clusterId: keep, similarity: 0.9 },
        { itemId: ids[1]!, clusterId: keep, similarity: 0.8 },
        { itemId: ids[2]!, clusterId: fresh, similarity: 0.7 },
      ]);
      // Nothing is visible before the swap.
      expect((await listClusterCentroids(db, ws)).map((c) => c.id).sort()).toEqual([keep, merged, emptied].sort());

      let yields = 0;
      const left = await applyReclusterStage(db, run, ws, [{ from: merged, to: keep }], async () => {
        yields++;
      });
      expect(left).toBe(2);
      expect(yields).toBeGreaterThan(0);
      const clusters = new Map((await listClusterCentroids(db, ws)).map((c) => [c.id, c]));
      expect(clusters.get(keep)).toMatchObject({ memberCount: 3, centroid: Float32Array.from([0.6, 0.4]) });
      expect(clusters.get(fresh)).toMatchObject({ memberCount: 1 });
      expect(Object.fromEntries((await listClusterMembersPage(db, ws, '', 10)).map((m) => [m.itemId, m.clusterId]))).toEqual({
        [ids[0]!]: keep, [ids[1]!]: keep, [ids[2]!]: fresh, [ids[3]!]: keep,
      });
      const row = (await db.query<{ topic: string; keywords: string[] }>('SELECT topic, keywords FROM clusters WHERE id = $1', [keep])).rows[0];
      expect(row).toEqual({ topic: 'kept and relabelled', keywords: ['kept and relabelled', 'shared'] });
      // The run's staging rows are gone.
      expect((await db.query('SELECT 1 FROM cluster_stage WHERE run_id = $1 UNION ALL SELECT 1 FROM cluster_member_stage WHERE run_id = $1', [run])).rows).toHaveLength(0);
    });

    it('rolls the swap back whole when it fails, and a later run clears what a dead run staged', async () => {
      const ws = await testWorkspace(db);
      const a = await item(ws, 1);
      const id = `clu_${randomSuffix()}`;
      await insertSeedCluster(db, { workspaceId: ws, itemId: a, clusterId: id, centroid: [1, 0], labels: labels('before') });
      const run = newReclusterRun();
      await stageClusters(db, run, ws, [{ id, ...labels('after'), centroid: [0, 1] }]);
      await expect(applyReclusterStage(db, run, ws, [], async () => {
        throw new Error('stop');
      })).rejects.toThrow('stop');
      expect((await db.query<{ topic: string }>('SELECT topic FROM clusters WHERE id = $1', [id])).rows[0]?.topic).toBe('before');
      expect(await dropStaleReclusterStages(db, ws, 60_000)).toBe(0);
      expect(await dropStaleReclusterStages(db, ws, -60_000)).toBe(1);
      expect((await db.query('SELECT 1 FROM cluster_stage WHERE run_id = $1', [run])).rows).toHaveLength(0);
    });
  });

  describe('the area model', () => {
    it('lists changes in pages, leaving out commits a pull request contains', async () => {
      const ws = await testWorkspace(db);
      const pr = await item(ws, 1, { files: ['src/a.js'] });
      const squash = await item(ws, 2, { type: 'commit' });
      const lone = await item(ws, 3, { type: 'commit', files: ['src/b.js'] });
      await db.transaction((tx) => replaceItemEdges(tx, { workspaceId: ws, itemId: pr, edges: [{ sourceId: pr, targetId: squash, type: 'commit_pr', linkingKey: 'k', confidence: 1 }] }));
      const first = await listChangesPage(db, ws, '', 1);
      const rest = await listChangesPage(db, ws, first[0]!.id, 10);
      expect([...first, ...rest]).toEqual([
        { id: pr, title: 'Change 1', files: ['src/a.js'] },
        { id: lone, title: 'Change 3', files: ['src/b.js'] },
      ]);
    });

    it('publishes a generation at once: readers see the old model until then, never a part of the new one', async () => {
      const ws = await testWorkspace(db);
      expect(await getAreaModelVersion(db, ws)).toBeNull();
      await replaceAreaModel(db, ws, areaModel(3, [[ROOT_AREA, 3], ['src/', 2]], [['css', ROOT_AREA, 2], ['css', 'src/', 1]]));
      const v1 = await getAreaModelVersion(db, ws);
      expect(v1).toMatchObject({ changes: 3 });

      const next = await startAreaModel(db);
      await writeAreas(db, ws, next, [ROOT_AREA, 'src/', 'docs/'], [5, 3, 2]);
      await writeAreaTerms(db, ws, next, ['css'], ['src/'], [3]);
      const during = await getAreaCounts(db, ws, ['src/', 'docs/'], ['css']);
      expect(Object.fromEntries(during.areas)).toEqual({ [ROOT_AREA]: 3, 'src/': 2 });
      expect(Object.fromEntries(during.terms.get('src/')!)).toEqual({ css: 1 });

      expect(await publishAreaModel(db, ws, next, 5)).toBe(true);
      const after = await getAreaCounts(db, ws, ['src/', 'docs/'], ['css']);
      expect(Object.fromEntries(after.areas)).toEqual({ [ROOT_AREA]: 5, 'src/': 3, 'docs/': 2 });
      expect(after.terms.get(ROOT_AREA)).toBeUndefined();
      expect((await getAreaModelVersion(db, ws))!.builtAt).toBeGreaterThanOrEqual(v1!.builtAt);

      // A build that started before the published one does not replace it.
      expect(await publishAreaModel(db, ws, next - 1, 99)).toBe(false);
      expect(await getAreaModelVersion(db, ws)).toMatchObject({ changes: 5 });

      // The replaced generation's rows go in slices.
      // (one row for the term's list, two for the areas)
      expect(await pruneAreaModels(db, ws, 2)).toBe(2);
      expect(await pruneAreaModels(db, ws, 2)).toBe(1);
      expect(await pruneAreaModels(db, ws, 2)).toBe(0);
      const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM areas WHERE workspace_id = $1', [ws]);
      expect(rows.rows[0]!.n).toBe(3);
    });

    it.runIf(url.startsWith('pglite'))('on the embedded database, a replaced model\'s space is reused once the re-cluster\'s maintenance has run', async () => {
      const ws = await testWorkspace(db);
      const n = 6_000;
      const rows = Array.from({ length: n }, (_, i): [string, string, number] => [`term${i % 1_500}`, `src/area${Math.floor(i / 1_500)}/`, 2]);
      const model = areaModel(n, [[ROOT_AREA, n], ...[0, 1, 2, 3].map((a): [string, number] => [`src/area${a}/`, 1_500])], rows);
      const size = async () => Number((await db.query<{ s: string }>("SELECT pg_total_relation_size('area_term_lists')::text AS s")).rows[0]!.s);
      const sizes: number[] = [];
      for (let i = 0; i < 6; i++) {
        await replaceAreaModel(db, ws, model);
        expect(await refreshPlannerStatsByTable(db, undefined, RECLUSTER_REWRITTEN_TABLES)).toContain('public.area_term_lists');
        sizes.push(await size());
      }
      // Without the vacuum every rebuild appends a whole copy (six copies after six rebuilds); with it the
      // table holds the live copy and the space of the one it replaced.
      expect(Math.max(...sizes.slice(2))).toBeLessThan(3 * sizes[0]!);
      expect(Object.fromEntries((await getAreaCounts(db, ws, ['src/area0/'], ['term7'])).terms.get('src/area0/')!)).toEqual({ term7: 2 });
    });

    it('keeps workspaces apart', async () => {
      const [a, b] = [await testWorkspace(db), await testWorkspace(db)];
      await replaceAreaModel(db, a, areaModel(2, [[ROOT_AREA, 2], ['x/', 2]], [['t', 'x/', 2]]));
      await replaceAreaModel(db, b, areaModel(0, [[ROOT_AREA, 0]], []));
      await replaceAreaModel(db, b, areaModel(0, [[ROOT_AREA, 0]], []));
      expect(Object.fromEntries((await getAreaCounts(db, a, ['x/'], ['t'])).terms.get('x/')!)).toEqual({ t: 2 });
      expect((await getAreaCounts(db, b, ['x/'], ['t'])).terms.size).toBe(0);
    });
  });
});
