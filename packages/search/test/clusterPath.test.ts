import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { centroidHex, type Db, type SearchReadModel } from '@engram/stores';
import { openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { sharedSnapshots } from '../src/paths/atRest.js';
import { clusterPath, createCentroidCache, NATIVE_MIN_ROWS, UnitCentroids } from '../src/paths/cluster.js';

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
        `INSERT INTO clusters (id, workspace_id, member_count, centroid) VALUES ($1, $2, 1, decode($3, 'hex'))
         ON CONFLICT (id) DO UPDATE SET centroid = EXCLUDED.centroid, updated_at = clock_timestamp()`,
        [id, ws, centroidHex(centroid)],
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

describe('the centroid matrix', () => {
  /** Numbers in [-1, 1) from a linear congruential generator: the same rows every run. */
  const seeded = (seed: number) => () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648) * 2 - 1;
  const unit = (v: readonly number[]) => {
    const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
    return Float64Array.from(v, (x) => x / n);
  };
  /** A centroid as the cache holds one read from the database: its 32-bit values as stored, and the scale that makes them a unit vector. */
  const stored = (v: readonly number[]) => {
    const vector = Float32Array.from(v);
    return { vector, scale: 1 / (Math.sqrt(vector.reduce((a, x) => a + x * x, 0)) || 1) };
  };
  /** The unit centroid the cache compares with: each value scaled in 64 bits. */
  const unitOf = (c: { vector: ArrayLike<number>; scale: number }) => Float64Array.from(c.vector, (x) => x * c.scale);

  it('ranks clusters as comparing the query with each centroid would, ties in row order', async () => {
    const rand = seeded(7);
    // Rows of 8 dimensions, a few shorter (a model change leaves old centroids behind), and duplicates for ties.
    const centroids = Array.from({ length: 300 }, (_, i) => ({ id: `c${i}`, ...stored(Array.from({ length: i % 37 === 0 ? 5 : 8 }, () => 3 * rand())), memberCount: 1 }));
    centroids.push({ ...centroids[10]!, id: 'dup10' }, { ...centroids[20]!, id: 'dup20' });
    const matrix = new UnitCentroids(centroids);
    for (let q = 0; q < 40; q++) {
      const query = unit(Array.from({ length: 8 }, rand));
      for (const [k, floor] of [[3, 0.35], [5, -1], [1, 0], [0, 0]] as const) {
        const expected = centroids
          .map((c) => ({ id: c.id, sim: unitOf(c).reduce((a, x, i) => a + x * query[i]!, 0) }))
          .filter((c) => c.sim >= floor)
          .sort((a, b) => b.sim - a.sim)
          .slice(0, k);
        expect(await matrix.nearest(query, k, floor)).toEqual(expected);
      }
    }
    expect((await matrix.nearest(unitOf(centroids[10]!), 2, -1)).map((c) => c.id)).toEqual(['c10', 'dup10']);
  });

  // From NATIVE_MIN_ROWS rows a float32 scan goes first: its answer must still be the exact scan's,
  // including rows float32 cannot tell apart (a centroid and one moved by 1e-9) and exact ties.
  it('gives the exact answer with the float32 scan first, on rows float32 cannot tell apart', async () => {
    const rand = seeded(11);
    const dims = 24;
    const centroids = Array.from({ length: NATIVE_MIN_ROWS + 700 }, (_, i) => ({ id: `c${i}`, scale: 1, vector: unit(Array.from({ length: i % 97 === 0 ? 20 : dims }, rand)), memberCount: 1 }));
    for (let i = 0; i < 60; i++) {
      const base = centroids[i * 7]!;
      centroids.push({ ...base, id: `dup${i}` }); // an exact tie, later in row order
      centroids.push({ id: `near${i}`, scale: 1, vector: unit(Array.from(base.vector, (x, d) => x + (d === 0 ? 1e-9 : 0))), memberCount: 1 });
    }
    const matrix = new UnitCentroids(centroids);
    const reference = (query: Float64Array, k: number, floor: number) =>
      centroids
        .map((c) => ({ id: c.id, sim: unitOf(c).reduce((a, x, i) => a + x * query[i]!, 0) }))
        .filter((c) => c.sim >= floor)
        .sort((a, b) => b.sim - a.sim)
        .slice(0, k);
    const queries = [...Array.from({ length: 30 }, () => unit(Array.from({ length: dims }, rand))), ...[7, 14, 21, 28].map((r) => centroids[r]!.vector)];
    for (const query of queries) {
      for (const [k, floor] of [[3, 0.2], [5, -1], [10, 0], [1, 0.99], [40, -1]] as const) {
        expect(await matrix.nearest(query, k, floor)).toEqual(reference(query, k, floor));
      }
    }
    const tied = (await matrix.nearest(centroids[7]!.vector, 3, -1)).map((c) => c.id);
    expect(tied).toContain('dup1');
    expect(tied.indexOf('c7')).toBeLessThan(tied.indexOf('dup1'));
  });

  // A reload writes its matrix into an earlier one's memory (new pages cost the event loop ~130 ms a
  // reload at 4k x 768): both answer exactly, and a matrix a search is scanning is never written over.
  it('answers exactly when a newer matrix took over its memory, and keeps the memory a scan is reading', async () => {
    const rand = seeded(5);
    const dims = 16;
    const make = (prefix: string, sign: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, scale: 1, vector: unit(Array.from({ length: dims }, () => sign * Math.abs(rand()))), memberCount: 1 }));
    const reference = (centroids: { id: string; vector: Float64Array; scale: number }[], query: Float64Array, k: number) =>
      centroids
        .map((c) => ({ id: c.id, sim: unitOf(c).reduce((a, x, i) => a + x * query[i]!, 0) }))
        .sort((a, b) => b.sim - a.sim)
        .slice(0, k);
    const query = unit(Array.from({ length: dims }, () => Math.abs(rand())));
    const first = make('a', 1, NATIVE_MIN_ROWS + 100);
    const second = make('b', -1, NATIVE_MIN_ROWS + 50);
    const third = make('c', 1, NATIVE_MIN_ROWS + 80);

    const a = new UnitCentroids(first);
    // `a` is being scanned while `b` is built from it: `b` takes new memory.
    const scanning = a.nearest(query, 5, -1);
    const b = new UnitCentroids(second, a);
    expect(await scanning).toEqual(reference(first, query, 5));
    // No scan now: `c` writes into `a`'s memory, and `a` answers from its centroids.
    const c = new UnitCentroids(third, a);
    expect(await a.nearest(query, 5, -1)).toEqual(reference(first, query, 5));
    expect(await b.nearest(query, 5, -1)).toEqual(reference(second, query, 5));
    expect(await c.nearest(query, 5, -1)).toEqual(reference(third, query, 5));
    // More rows than `b`'s memory holds: new memory again.
    const d = new UnitCentroids(make('d', 1, Math.ceil((NATIVE_MIN_ROWS + 50) * 1.5)), b);
    expect((await d.nearest(query, 1, -1))[0]!.id).toMatch(/^d/);
    expect(await b.nearest(query, 5, -1)).toEqual(reference(second, query, 5));
  });
});
