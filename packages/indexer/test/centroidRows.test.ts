import { describe, expect, it } from 'vitest';
import { CentroidRows, OFF_THREAD_MIN_ROWS } from '../src/clusters/centroidRows.js';
import { centre, centredCosine, centredMean, dot, norm } from '../src/clusters/features.js';

/** A deterministic pseudo-random vector. */
function vector(seed: number, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  let s = seed;
  for (let i = 0; i < dimensions; i++) {
    s = (s * 16807) % 2147483647;
    out[i] = s / 2147483647 - 0.5;
  }
  return out;
}

/** A unit vector in a narrow cone, as sentence embeddings are: `height` along the first `axes` axes, noise of `spread` elsewhere. */
function inCone(seed: number, dimensions: number, axes: number, height: number, spread: number): Float32Array {
  const v = vector(seed, dimensions).map((x, i) => (i < axes ? height : 0) + x * spread);
  const length = norm(v);
  return v.map((x) => x / length);
}

/** The nearest centroid the way it is defined: `centredCosine` against each, the first of equals kept. */
function bruteForce(centroids: Map<string, Float32Array>, feature: Float32Array, sum: Float64Array, count: number, exclude?: string) {
  const mean = centredMean(sum, count);
  const centred = centre(feature, mean);
  let best: { id: string; similarity: number } | null = null;
  for (const [id, c] of centroids) {
    if (id === exclude) continue;
    const similarity = centredCosine(centred, c, norm(c), mean);
    if (best === null || similarity > best.similarity) best = { id, similarity };
  }
  return best;
}

/** The scan `nearest` replaces: both dot products of every row, in row order, the first of equals kept. */
function fullScan(rows: Map<string, Float32Array>, order: string[], centred: Float32Array, mean: ReturnType<typeof centredMean>, towardMean: number) {
  let best: { id: string; similarity: number } | null = null;
  for (const id of order) {
    const c = rows.get(id)!;
    let withFeature = 0;
    let withMean = 0;
    for (let i = 0; i < c.length; i++) {
      withFeature += centred[i]! * c[i]!;
      withMean += c[i]! * mean.mean[i]!;
    }
    const n = norm(c);
    const length2 = n * n - 2 * withMean + mean.norm2;
    const similarity = length2 <= 1e-12 ? 0 : (withFeature - towardMean) / Math.sqrt(length2);
    if (best === null || similarity > best.similarity) best = { id, similarity };
  }
  return best;
}

/** Rows, and the same centroids in the order the full scan reads them, added together. */
function rowsWithCopy(d: number) {
  const rows = new CentroidRows(d);
  const centroids = new Map<string, Float32Array>();
  const order: string[] = [];
  const add = (id: string, c: Float32Array): void => {
    centroids.set(id, c);
    order.push(id);
    rows.set(id, c, norm(c));
  };
  return { rows, centroids, order, add };
}

describe('CentroidRows', () => {
  it('answers as the full scan does, to the bit, while the workspace mean moves as items join clusters', async () => {
    const d = 48;
    const rows = new CentroidRows(d, 4);
    const centroids = new Map<string, Float32Array>();
    const order: string[] = [];
    const counts = new Map<string, number>();
    const sum = new Float64Array(d);
    let members = 0;
    // Features in a narrow cone, as sentence embeddings are: every centroid is close to the mean.
    const feature = (seed: number): Float32Array => inCone(seed, d, 4, 3, 0.6);
    for (let q = 0; q < 600; q++) {
      const f = feature(q + 11);
      const mean = centredMean(sum, members);
      const centred = centre(f, mean);
      const towardMean = dot(centred, mean.mean);
      const exclude = q % 5 === 0 && order.length > 1 ? order[q % order.length] : undefined;
      const expected = fullScan(centroids, order.filter((id) => id !== exclude), centred, mean, towardMean);
      const found = await rows.nearest(centred, mean, towardMean, exclude);
      expect(found).toEqual(expected);
      // Join the nearest cluster when close, else seed one: the mean moves by this item either way.
      if (found && found.similarity >= 0.3 && q % 7 !== 0) {
        const c = centroids.get(found.id)!;
        const k = counts.get(found.id)!;
        const next = c.map((x, i) => (x * k + f[i]!) / (k + 1));
        centroids.set(found.id, next);
        counts.set(found.id, k + 1);
        rows.set(found.id, next, norm(next));
      } else {
        const id = `c${q}`;
        centroids.set(id, f);
        counts.set(id, 1);
        order.push(id);
        rows.set(id, f, norm(f));
      }
      f.forEach((x, i) => (sum[i]! += x));
      members++;
      // Now and then a cluster goes (a re-cluster merged it): the last row moves into its place.
      if (q % 53 === 52 && order.length > 3) {
        const gone = order[1]!;
        const last = order.pop()!;
        if (gone !== last) order[1] = last;
        centroids.delete(gone);
        rows.delete(gone);
      }
    }
    expect(order.length).toBeGreaterThan(20);
  });


  it('finds the centroid a scan over every cluster finds, with the same similarity, after rows are overwritten, removed and the matrix grows', async () => {
    const d = 24;
    const rows = new CentroidRows(d, 2);
    const centroids = new Map<string, Float32Array>();
    const sum = new Float64Array(d);
    for (let k = 0; k < 150; k++) {
      const c = vector(k + 1, d);
      centroids.set(`c${k}`, c);
      rows.set(`c${k}`, c, norm(c));
      c.forEach((x, i) => (sum[i]! += x));
    }
    // Overwrite some, remove others (the last row moves into the hole).
    for (let k = 0; k < 150; k += 7) {
      const c = vector(1000 + k, d);
      centroids.set(`c${k}`, c);
      rows.set(`c${k}`, c, norm(c));
    }
    for (const k of [3, 149, 0, 148, 77]) {
      centroids.delete(`c${k}`);
      rows.delete(`c${k}`);
    }
    expect(rows.size).toBe(centroids.size);
    const mean = centredMean(sum, 150);
    for (let q = 0; q < 40; q++) {
      const feature = vector(5000 + q, d);
      const centred = centre(feature, mean);
      const exclude = q % 3 === 0 ? bruteForce(centroids, feature, sum, 150)!.id : undefined;
      const found = await rows.nearest(centred, mean, dot(centred, mean.mean), exclude);
      const expected = bruteForce(centroids, feature, sum, 150, exclude)!;
      expect(found).not.toBeNull();
      expect(found!.id).toBe(expected.id);
      expect(found!.id).not.toBe(exclude);
      expect(Math.abs(found!.similarity - expected.similarity)).toBeLessThan(1e-12);
    }
  });

  it('answers as the full scan does when most rows are left out of the native first pass (hundreds of rows in a narrow cone)', async () => {
    const d = 40;
    const { rows, centroids, order, add } = rowsWithCopy(d);
    const sum = new Float64Array(d);
    // Close to one another, as sentence-embedding centroids are: many rows' bounds overlap the best one's.
    const inCone = (seed: number, spread: number): Float32Array => {
      const v = vector(seed, d).map((x, i) => (i < 3 ? 2 : 0) + x * spread);
      const length = norm(v);
      return v.map((x) => x / length);
    };
    for (let k = 0; k < 900; k++) {
      const c = inCone(k + 3, k % 2 === 0 ? 0.4 : 1.5);
      add(`c${k}`, c);
      c.forEach((x, i) => (sum[i]! += x));
    }
    const mean = centredMean(sum, 900);
    for (let q = 0; q < 60; q++) {
      const centred = centre(inCone(7000 + q, q % 2 === 0 ? 0.3 : 2), mean);
      const towardMean = dot(centred, mean.mean);
      const best = fullScan(centroids, order, centred, mean, towardMean)!;
      const exclude = q % 3 === 0 ? best.id : undefined;
      expect(await rows.nearest(centred, mean, towardMean, exclude)).toEqual(exclude ? fullScan(centroids, order.filter((id) => id !== exclude), centred, mean, towardMean) : best);
    }
  });

  it('finds a row near the mean that the native first pass left out (a small product, the best centred cosine)', async () => {
    const d = 16;
    const { rows, centroids, order, add } = rowsWithCopy(d);
    const sum = new Float64Array(d);
    // Long rows in every direction: they hold the largest products with any query.
    for (let k = 0; k < 300; k++) {
      const c = vector(k + 1, d).map((x) => x * 10);
      add(`far${k}`, c);
      c.forEach((x, i) => (sum[i]! += x));
    }
    const mean = centredMean(sum, 300);
    for (let q = 0; q < 30; q++) {
      const raw = vector(9000 + q, d);
      const direction = raw.map((x) => x / norm(raw));
      // A short step from the mean towards the query: centred, it points where the query does.
      add(`near${q}`, mean.mean.map((x, i) => x + 0.01 * direction[i]!));
      const towardMean = dot(direction, mean.mean);
      const found = await rows.nearest(direction, mean, towardMean);
      expect(found?.id).toBe(`near${q}`);
      expect(found).toEqual(fullScan(centroids, order, direction, mean, towardMean));
    }
  });

  it('has no nearest row when empty or when the only row is excluded', async () => {
    const rows = new CentroidRows(4);
    const mean = centredMean(new Float64Array(4), 0);
    const unit = new Float32Array([1, 0, 0, 0]);
    expect(await rows.nearest(unit, mean, 0)).toBeNull();
    rows.set('a', unit, 1);
    expect(await rows.nearest(unit, mean, 0, 'a')).toBeNull();
    expect((await await rows.nearest(unit, mean, 0))?.id).toBe('a');
    expect(() => rows.set('b', new Float32Array(3), 1)).toThrow(/3 dimensions/);
  });

  it("answers from passes taken for a whole batch at once as the full scan does, while the batch's own placements move the rows and the mean", async () => {
    const d = 32;
    const { rows, centroids, order, add } = rowsWithCopy(d);
    const counts = new Map<string, number>();
    const sum = new Float64Array(d);
    let members = 0;
    // A narrow cone: many rows are close, and the mean moves each placement.
    const feature = (seed: number): Float32Array => inCone(seed, d, 3, 2, 0.8);
    for (let k = 0; k < OFF_THREAD_MIN_ROWS + 200; k++) {
      const c = feature(k + 5);
      add(`c${k}`, c);
      counts.set(`c${k}`, 3);
      c.forEach((x, i) => (sum[i]! += 3 * x));
      members += 3;
    }
    // The batch leans elsewhere in the cone, and weighs: the mean moves well away from the passes' own.
    const batch = Array.from({ length: 90 }, (_, q) => feature(50_000 + q).map((x, i) => (i === 5 ? x + 1.5 : x)));
    const passes = await rows.firstPasses(batch.map((f) => centre(f, centredMean(sum, members))));
    expect(passes).toHaveLength(batch.length);
    for (const [q, f] of batch.entries()) {
      const mean = centredMean(sum, members);
      const centred = centre(f, mean);
      const towardMean = dot(centred, mean.mean);
      const exclude = q % 6 === 0 ? order[q] : undefined;
      const found = await rows.nearest(centred, mean, towardMean, exclude, passes![q]);
      expect(found).toEqual(fullScan(centroids, order.filter((id) => id !== exclude), centred, mean, towardMean));
      // Join the nearest (its row moves toward the feature), or seed a row in the feature's direction.
      if (found && q % 3 !== 0) {
        const k = counts.get(found.id)!;
        const next = centroids.get(found.id)!.map((x, i) => (x * k + f[i]!) / (k + 1));
        centroids.set(found.id, next);
        counts.set(found.id, k + 1);
        rows.set(found.id, next, norm(next));
      } else {
        add(`s${q}`, f);
        counts.set(`s${q}`, 1);
      }
      f.forEach((x, i) => (sum[i]! += 40 * x));
      members += 40;
      // A cluster removed mid-batch (rows move): the passes taken before it are not used after it.
      if (q === 60) {
        const gone = order[2]!;
        const last = order.pop()!;
        if (gone !== last) order[2] = last;
        centroids.delete(gone);
        rows.delete(gone);
      }
    }
  });

  it('takes the first pass from the scan thread for thousands of rows and answers as the full scan does, also when a cluster is seeded during that scan', async () => {
    const d = 64;
    const { rows, centroids, order, add } = rowsWithCopy(d);
    const sum = new Float64Array(d);
    const count = OFF_THREAD_MIN_ROWS + 500;
    for (let k = 0; k < count; k++) {
      const c = vector(k + 17, d);
      add(`c${k}`, c);
      c.forEach((x, i) => (sum[i]! += x));
    }
    const mean = centredMean(sum, count);
    for (let q = 0; q < 20; q++) {
      const centred = centre(vector(20_000 + q, d), mean);
      const towardMean = dot(centred, mean.mean);
      const exclude = q % 4 === 0 ? order[q] : undefined;
      expect(await rows.nearest(centred, mean, towardMean, exclude)).toEqual(fullScan(centroids, order.filter((id) => id !== exclude), centred, mean, towardMean));
    }
    // A cluster seeded while the scan runs, in the query's own direction from the mean: the answer is the
    // rows' as they are when it returns, not the products the scan took of the rows before.
    const query = centre(vector(30_000, d), mean);
    const towardMean = dot(query, mean.mean);
    const pending = rows.nearest(query, mean, towardMean);
    add('seeded', mean.mean.map((x, i) => x + 5 * query[i]!));
    const found = await pending;
    expect(found?.id).toBe('seeded');
    expect(found).toEqual(fullScan(centroids, order, query, mean, towardMean));
  });
});
