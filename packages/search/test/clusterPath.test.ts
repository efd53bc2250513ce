import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, SearchReadModel } from '@engram/stores';
import { openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { sharedSnapshots } from '../src/paths/atRest.js';
import { clusterPath, createCentroidCache } from '../src/paths/cluster.js';

let db: Db;
beforeAll(async () => {
  db = await openTestDatabase('pglite://memory');
});
afterAll(async () => db?.close());

describe('the cluster path', () => {
  it('follows centroid writes, new clusters and deleted ones (re-reading only the centroids that moved)', async () => {
    const ws = await testWorkspace(db);
    const put = (id: string, centroid: number[]) =>
      db.query(
        `INSERT INTO clusters (id, workspace_id, member_count, centroid) VALUES ($1, $2, 1, $3::jsonb)
         ON CONFLICT (id) DO UPDATE SET centroid = EXCLUDED.centroid, updated_at = clock_timestamp()`,
        [id, ws, JSON.stringify(centroid)],
      );
    await put('clu_a', [1, 0, 0]);
    await put('clu_b', [0, 1, 0]);
    // Staleness 0: every search after a write reads the centroids again (per query), never a stale snapshot.
    const cache = createCentroidCache(db, sharedSnapshots(db, 0), 0);
    const nearest = async () =>
      (await clusterPath({} as SearchReadModel, cache, { workspaceId: ws }, [1, 0.1, 0], { clusters: 3, k: 10, floor: -1 })).clusterIds;

    expect(await nearest()).toEqual(['clu_a', 'clu_b']);
    await put('clu_a', [0, 0, 1]);
    expect(await nearest()).toEqual(['clu_b', 'clu_a']);
    await put('clu_c', [1, 0, 0]);
    expect(await nearest()).toEqual(['clu_c', 'clu_b', 'clu_a']);
    await db.query("DELETE FROM clusters WHERE id = 'clu_b'");
    expect(await nearest()).toEqual(['clu_c', 'clu_a']);
  });
});
