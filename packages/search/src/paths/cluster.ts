import { clusterCentroidsById, clusterCentroidVersions, clusterMembers, narrowsItems, sharedFloats, topInnerProductsOffThread, type Db, type SearchReadModel } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
import { AGGREGATE_STALENESS_FACTOR, cachedRead, DEFAULT_SNAPSHOT_STALENESS_MS, derive, onFirstUse, type SharedSnapshots } from './atRest.js';
import { timed, type PathResult } from './types.js';

export interface Centroid {
  id: string;
  /**
   * The centroid as stored (32-bit floats) and what scales it to length 1: value i of the unit centroid is
   * `vector[i] * scale`, computed in 64 bits where it is read, so a cosine is one dot product. Kept as
   * read instead of as a unit vector of 64-bit floats: half the memory (4,000 centroids of 768 values at
   * 100k items were 24 MB of units beside a 12 MB float32 matrix), the same similarities to the last bit.
   */
  vector: Float32Array | Float64Array;
  scale: number;
  memberCount: number;
}

/** What scales `v` to length 1 (1 for a zero vector, which stays zero). */
const unitScale = (v: ArrayLike<number>): number => {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  return 1 / (Math.sqrt(n) || 1);
};

const toUnit = (v: ArrayLike<number>): Float64Array => {
  const scale = unitScale(v);
  const unit = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) unit[i] = v[i]! * scale;
  return unit;
};

const TTL_MS = 60_000;
/** Centroids a reload reads per statement. */
const CENTROID_PAGE = 256;

/**
 * A workspace's unit centroids, for the clusters nearest a query (thousands at 100k items).
 *
 * From NATIVE_MIN_ROWS rows a float32 matrix of them (rows of differing lengths padded with zeros, which
 * leave every dot product as it was) is scanned first by the native SIMD kernel (7x faster than a
 * JavaScript loop on 2,000 x 512), on the scan thread (at 100k items, ~1.8 ms a search on the event loop
 * under 16 clients), and only the rows whose float32 similarity is within its rounding bound of the cut
 * are compared exactly, on the centroids themselves: the answer is the exact scan's, ties and all.
 *
 * Centroids are read again whenever clusters move (after each batch of an import), and a new matrix was
 * new memory: 4,093 x 768 rows as float64 and float32 were 37 MB whose first writes (page faults) held the
 * event loop 130 ms on an idle 2-core VM, 400-800 ms under 16 clients, every reload. The matrix is now
 * float32 alone, written into the matrix of an earlier reload that no search is reading any more (`spare`)
 * when there is one: 6-8 ms.
 */
export class UnitCentroids {
  readonly ids: string[];
  private readonly centroids: readonly Centroid[];
  /** The float32 matrix (from NATIVE_MIN_ROWS rows), on shared memory that may be longer than its rows. */
  private rows32: Float32Array | null = null;
  private readonly stride: number;
  /** Native scans of `rows32` under way. */
  private scanning = 0;

  constructor(centroids: readonly Centroid[], spare?: UnitCentroids) {
    this.ids = centroids.map((c) => c.id);
    this.centroids = centroids;
    // A reduce, not a spread: a workspace of a million items has more clusters than a call takes arguments.
    const stride = (this.stride = centroids.reduce((m, c) => Math.max(m, c.vector.length), 0));
    if (centroids.length < NATIVE_MIN_ROWS || stride === 0) return;
    const length = centroids.length * stride;
    const rows = spare?.handOver(length) ?? sharedFloats(Math.ceil(length * SPARE_ROOM));
    centroids.forEach(({ vector, scale }, r) => {
      const at = r * stride;
      for (let i = 0; i < vector.length; i++) rows[at + i] = vector[i]! * scale;
      if (vector.length < stride) rows.fill(0, at + vector.length, at + stride);
    });
    this.rows32 = rows.subarray(0, length);
  }

  /**
   * This instance's matrix, for a newer one to write its rows into, when it holds at least `length` values
   * and no scan is reading it; from then on this instance scans exactly.
   */
  private handOver(length: number): Float32Array | null {
    const rows = this.rows32;
    if (!rows || this.scanning > 0 || (rows.buffer as SharedArrayBuffer).byteLength < length * 4) return null;
    this.rows32 = null;
    return new Float32Array(rows.buffer, 0, length);
  }

  /** The `k` rows most similar to the unit `query` at or above `floor`, most similar first (ties: the earlier row). */
  async nearest(query: Float64Array, k: number, floor: number): Promise<{ id: string; sim: number }[]> {
    if (k <= 0) return [];
    const count = this.ids.length;
    const rows32 = this.rows32;
    if (!rows32) return this.exact(query, k, floor, null);
    const { stride } = this;
    const q32 = new Float32Array(stride);
    let norm = 0;
    for (let i = 0; i < Math.min(query.length, stride); i++) {
      q32[i] = query[i]!;
      norm += query[i]! * query[i]!;
    }
    // |float32 product - exact| for rows of length <= 1: rounding the operands and each float32 sum
    // (at most stride + 2 roundings of 2^-24 over sum |q_i r_i| <= |q|), and the kernel's 1 - product; doubled.
    const bound = 2 * ((stride + 4) * 2 ** -24 * Math.sqrt(norm) + 2 ** -22);
    this.scanning++;
    try {
      for (let want = Math.min(count, 4 * k + 64); want < count; want = Math.min(count, want * 4)) {
        const { rows, products } = await topInnerProductsOffThread(rows32, q32, stride, want);
        // Every row's exact similarity is within `bound` of its product: the k-th exact one is at least
        // the k-th product less the bound, and a row not returned is at most the last product plus it.
        const cut = Math.max(floor, products.length >= k ? products[k - 1]! - bound : -Infinity);
        if (products.length < want || products[products.length - 1]! + bound >= cut) continue;
        const candidates = rows.filter((_, i) => products[i]! + bound >= cut).sort((a, b) => a - b);
        return this.exact(query, k, floor, candidates);
      }
    } finally {
      this.scanning--;
    }
    return this.exact(query, k, floor, null);
  }

  /** The exact scan, over every row or over `candidates` (ascending row numbers). */
  private exact(query: Float64Array, k: number, floor: number, candidates: readonly number[] | null): { id: string; sim: number }[] {
    const top: { id: string; sim: number }[] = [];
    const total = candidates ? candidates.length : this.ids.length;
    for (let c = 0; c < total; c++) {
      const r = candidates ? candidates[c]! : c;
      const { vector, scale } = this.centroids[r]!;
      const n = Math.min(query.length, vector.length);
      let sim = 0;
      for (let i = 0; i < n; i++) sim += query[i]! * (vector[i]! * scale);
      if (!(sim >= floor) || (top.length === k && sim <= top[k - 1]!.sim)) continue;
      let i = top.length === k ? k - 1 : top.length;
      while (i > 0 && top[i - 1]!.sim < sim) i--;
      top.splice(i, 0, { id: this.ids[r]!, sim });
      if (top.length > k) top.pop();
    }
    return top;
  }
}

/** Room a new matrix leaves for more clusters, so that a later reload can still write into it. */
const SPARE_ROOM = 1.25;

/** Centroids from which the float32 native scan goes first (below, the exact loop alone is as quick). */
export const NATIVE_MIN_ROWS = 512;

interface Member {
  id: string;
  clusterId: string;
  similarity: number;
}

/**
 * Cluster centroids per workspace (`cachedRead`: near-real-time on the embedded default, a minute on a
 * server); and every cluster's members from a near-real-time snapshot, so a search reads no members from
 * the database.
 */
export function createCentroidCache(db: Db, shared: SharedSnapshots, maxStaleMs = DEFAULT_SNAPSHOT_STALENESS_MS) {
  // Per workspace, the last two built: a reload writes into the older one's matrix (`UnitCentroids`).
  const built = new Map<string, UnitCentroids[]>();
  const centroids = cachedRead(
    db,
    async (workspaceId) => {
      const loaded = await loadCentroids(workspaceId);
      const last = built.get(workspaceId) ?? [];
      // The older of the two: the newer one is what searches are served now.
      const next = new UnitCentroids(loaded, last.length === 2 ? last[0] : undefined);
      built.set(workspaceId, [...last.slice(-1), next]);
      return next;
    },
    { maxStaleMs: AGGREGATE_STALENESS_FACTOR * maxStaleMs, tables: ['clusters'], serverTtlMs: TTL_MS },
  );
  /**
   * The last centroids read per workspace, by cluster id with their versions: a reload reads every
   * cluster's version and size, then the centroids of only those whose version moved. While items are
   * indexed a few clusters move at a time, and re-reading thousands of centroids (each hundreds of
   * numbers, then as JSON) held the database and this thread for hundreds of ms per reload.
   */
  const known = new Map<string, Map<string, { version: string; centroid: Centroid }>>();
  const loadCentroids = async (workspaceId: string): Promise<Centroid[]> => {
    const previous = known.get(workspaceId) ?? new Map<string, { version: string; centroid: Centroid }>();
    const versions = await clusterCentroidVersions(db, workspaceId);
    const moved = versions.filter((v) => previous.get(v.id)?.version !== v.version).map((v) => v.id);
    // Each centroid is read with its own version, so one written meanwhile is read again next time. After a
    // re-cluster every centroid has moved: read in pages, so no one reply (thousands of centroids) holds
    // this thread while it is decoded.
    const fresh = new Map<string, { id: string; version: string; vector: Float32Array }>();
    for (let i = 0; i < moved.length; i += CENTROID_PAGE) for (const c of await clusterCentroidsById(db, moved.slice(i, i + CENTROID_PAGE))) fresh.set(c.id, c);
    const next = new Map<string, { version: string; centroid: Centroid }>();
    for (const v of versions) {
      const read = fresh.get(v.id);
      const kept = previous.get(v.id);
      if (read) next.set(v.id, { version: read.version, centroid: { id: v.id, vector: read.vector, scale: unitScale(read.vector), memberCount: v.memberCount } });
      else if (kept?.version === v.version) next.set(v.id, { version: v.version, centroid: { ...kept.centroid, memberCount: v.memberCount } });
    }
    known.set(workspaceId, next);
    return [...next.values()].map((e) => e.centroid);
  };
  // A cluster's members are built when a search first reaches it in this snapshot (a search reads three
  // clusters; every member of every cluster is 100k objects at 100k items, built after each reload).
  const membership = derive(shared.clusterMembership, ({ clusters }) => {
    const runs = new Map(clusters.map((c) => [c.clusterId, c]));
    return onFirstUse((clusterId: string): Member[] => {
      const run = runs.get(clusterId);
      return run ? run.ids.map((id, i) => ({ id, clusterId, similarity: run.similarities[i]! })) : [];
    });
  });
  /** Members of these clusters that pass the filter: from the snapshot (filtered by the read model) or per query. */
  const members = async (read: SearchReadModel, filter: ItemFilter, clusterIds: readonly string[]): Promise<Member[]> => {
    const snapshot = membership.get(filter.workspaceId);
    if (!snapshot) return clusterMembers(db, filter, clusterIds);
    const membersOf = await snapshot;
    const all = clusterIds.flatMap(membersOf);
    if (!narrowsItems(filter)) return all;
    const passing = await read.poolRows(filter, all.map((m) => m.id));
    return all.filter((m) => passing.has(m.id));
  };
  return { centroids, members };
}
export type CentroidCache = ReturnType<typeof createCentroidCache>;

/**
 * The cluster path: the topic clusters closest to the query, and their members ranked by how central
 * they are (cluster similarity x member similarity). It finds items that share a topic with the query
 * without sharing its words.
 */
export function clusterPath(read: SearchReadModel, clusters: CentroidCache, filter: ItemFilter, queryVector: number[], options: { clusters: number; k: number; floor: number }): Promise<PathResult & { clusterIds: string[] }> {
  const started = performance.now();
  return (async () => {
    const all = await clusters.centroids(filter.workspaceId);
    const ranked = await all.nearest(toUnit(queryVector), Math.max(0, Math.floor(options.clusters)), options.floor);
    if (ranked.length === 0) return { scores: new Map(), ms: performance.now() - started, clusterIds: [] };
    const inner = await timed(async () => {
      const members = await clusters.members(read, filter, ranked.map((c) => c.id));
      const simOf = new Map(ranked.map((c) => [c.id, c.sim]));
      const scored = members
        .map((r) => ({ id: r.id, score: Math.max(0, Math.min(1, (simOf.get(r.clusterId) ?? 0) * Math.max(0, r.similarity))) }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, options.k);
      return { scores: new Map(scored.map((s) => [s.id, s.score])) };
    });
    return { ...inner, ms: performance.now() - started, clusterIds: ranked.map((c) => c.id) };
  })();
}
