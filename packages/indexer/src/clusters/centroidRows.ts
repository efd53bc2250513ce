import { sharedFloats, topInnerProducts, topInnerProductsBatchOffThread, topInnerProductsOffThread } from '@engram/stores';
import type { CentredMean } from './features.js';

export interface Nearest {
  id: string;
  similarity: number;
}

/**
 * A first pass taken for a feature ahead of its turn (`CentroidRows.firstPasses`): the best rows' products
 * with `query`, the feature centred on the mean of that moment, over the `scannedRows` rows as they were
 * after `writes` changes.
 */
export interface FirstPass {
  rows: number[];
  products: number[];
  query: Float32Array;
  scannedRows: number;
  writes: number;
}

/** How far the workspace mean may move from the one each row's `c·m` was taken against before they are taken again. */
const REBASE_DRIFT = 2e-3;
/** Products the first pass of `nearest` asks the native kernel for. */
const FIRST_WANT = 64;
/** Slack for rounding in the bounds below: far above float64's error on these sums, far below a similarity's resolution that matters. */
const SLACK = 1e-9;
/**
 * Rows from which the first pass's products come from the scan thread: below, the native scan takes less
 * than the message does. At 100k items (about 4,500 rows of 768) the scan was a third of the indexer's share
 * of the event loop during an import, in the event loop that answers searches.
 */
export const OFF_THREAD_MIN_ROWS = 1_024;

/**
 * A workspace's cluster centroids as the rows of one contiguous matrix. Placing an item scans every
 * centroid (thousands at 100k items, the indexer's hottest loop), in memory order.
 *
 * A row's centred cosine with a centred unit feature u is `(u·c - u·m) / sqrt(|c|² - 2 c·m + |m|²)`: two
 * dot products a row, u·c and c·m. c·m depends on the workspace mean m, which moves a little with every
 * item placed, so it cannot simply be kept; but it moves by at most `|c|·|m - m₀|` from its value
 * against an earlier mean m₀. u·c itself comes from usearch's native float32 kernel over every row at once
 * (about 10x the JavaScript loop; the loop over an int8 copy was a fifth of the event loop's time during a
 * 100k import), within its rounding bound. The scan therefore bounds each row's similarity from those two,
 * and computes the similarity the full way, from the float32 row, only for the rows whose upper bound
 * reaches the best lower bound. Every similarity it reports is computed as the full scan computes it, in
 * the same order, so the answer is the same to the bit, ties to the first row included. A removed row is
 * filled with the last one.
 *
 * The rows sit on a SharedArrayBuffer, so that from OFF_THREAD_MIN_ROWS rows the first pass's products come
 * from the scan thread while this thread answers requests. A row written while such a scan runs (another
 * placement in this workspace meanwhile) makes its products stale: they are then taken again here.
 */
export class CentroidRows {
  private data: Float32Array;
  /** Counts changes to the rows (a row written, added or removed): products a scan took before one are not used after it. */
  private writes = 0;
  /** The value of `writes` when each row was last written; a pass taken before it does not hold for the row. */
  private writtenAt: Float64Array;
  /** The value of `writes` at the last removal (rows move): a pass taken before it holds for none. */
  private lastRemoval = 0;
  private norms: Float64Array;
  /** Each row's `c·m₀` against `base`, the mean it was last taken against (null until the first scan). */
  private towardBase: Float64Array;
  private base: Float32Array | null = null;
  /** Each row's upper bound in the current scan. */
  private upper: Float64Array;
  private readonly ids: string[] = [];
  private readonly rowOf = new Map<string, number>();

  constructor(readonly dimensions: number, capacity = 64) {
    this.data = sharedFloats(capacity * dimensions);
    this.norms = new Float64Array(capacity);
    this.writtenAt = new Float64Array(capacity);
    this.towardBase = new Float64Array(capacity);
    this.upper = new Float64Array(capacity);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Adds the cluster's row or overwrites it. */
  set(id: string, centroid: Float32Array, centroidNorm: number): void {
    if (centroid.length !== this.dimensions) throw new Error(`centroid of ${centroid.length} dimensions in rows of ${this.dimensions}`);
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.ids.length;
      if (row === this.norms.length) this.grow();
      this.ids.push(id);
      this.rowOf.set(id, row);
    }
    this.data.set(centroid, row * this.dimensions);
    this.writes++;
    this.writtenAt[row] = this.writes;
    this.norms[row] = centroidNorm;
    if (this.base) this.towardBase[row] = this.rowDot(row, this.base);
  }

  /** A copy of the cluster's row (null when it has none). */
  read(id: string): Float32Array | null {
    const row = this.rowOf.get(id);
    return row === undefined ? null : this.data.slice(row * this.dimensions, (row + 1) * this.dimensions);
  }

  delete(id: string): void {
    const row = this.rowOf.get(id);
    if (row === undefined) return;
    const last = this.ids.length - 1;
    if (row !== last) {
      const lastId = this.ids[last]!;
      this.data.copyWithin(row * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.norms[row] = this.norms[last]!;
      this.towardBase[row] = this.towardBase[last]!;
      this.ids[row] = lastId;
      this.rowOf.set(lastId, row);
    }
    this.ids.pop();
    this.rowOf.delete(id);
    this.writes++;
    this.lastRemoval = this.writes;
  }

  /**
   * The row with the highest centred cosine (`centredCosine`) with `centred`, a unit feature with the
   * mean taken out; `towardMean` is `dot(centred, mean.mean)`, the same for every row. The first of
   * equal rows wins.
   */
  async nearest(centred: Float32Array, mean: CentredMean, towardMean: number, exclude?: string, pass?: FirstPass): Promise<Nearest | null> {
    if (pass && pass.writes >= this.lastRemoval) return this.nearestFrom(centred, mean, towardMean, exclude, this.fromPass(centred, pass));
    const count = this.ids.length;
    if (count >= OFF_THREAD_MIN_ROWS) {
      const writes = this.writes;
      const rows = new Float32Array(this.data.buffer, 0, count * this.dimensions);
      const first = await topInnerProductsOffThread(rows, centred, this.dimensions, Math.min(count, FIRST_WANT));
      if (writes === this.writes) return this.nearestFrom(centred, mean, towardMean, exclude, first);
    }
    return this.nearestFrom(centred, mean, towardMean, exclude, null);
  }

  /**
   * First passes for several centred features in one message to the scan thread, for `nearest` to use in
   * turn while the rows change between them (a batch placing its items one after another): one wait for
   * the scan thread instead of one a feature, which behind the thread's other work (graph inserts,
   * searches' scans) made placing 128 items take 0.1-0.6 s at 100k items, in the one step of an import
   * that runs a batch at a time. Null below OFF_THREAD_MIN_ROWS rows or when the thread cannot answer.
   */
  async firstPasses(centreds: readonly Float32Array[]): Promise<FirstPass[] | null> {
    const count = this.ids.length;
    const d = this.dimensions;
    if (count < OFF_THREAD_MIN_ROWS || centreds.length === 0) return null;
    const queries = new Float32Array(centreds.length * d);
    centreds.forEach((c, i) => queries.set(c, i * d));
    const writes = this.writes;
    const found = await topInnerProductsBatchOffThread(new Float32Array(this.data.buffer, 0, count * d), queries, d, Math.min(count, FIRST_WANT));
    return found?.map((f, i) => ({ ...f, query: centreds[i]!, scannedRows: count, writes })) ?? null;
  }

  /**
   * A pass's products as a first round for `centred`: the products of rows written since the pass (or added
   * after it) are taken again here, exactly, and listed; a row the pass did not return is bounded by the
   * last product it did (`floor`); `shift` (|centred - query|, the mean having moved since) widens every bound.
   */
  private fromPass(centred: Float32Array, pass: FirstPass): FirstRound {
    const rows: number[] = [];
    const products: number[] = [];
    for (let j = 0; j < pass.rows.length; j++) {
      const row = pass.rows[j]!;
      if (this.writtenAt[row]! > pass.writes) continue;
      rows.push(row);
      products.push(pass.products[j]!);
    }
    for (let row = 0; row < this.ids.length; row++) {
      if (row < pass.scannedRows && this.writtenAt[row]! <= pass.writes) continue;
      rows.push(row);
      products.push(this.rowDot(row, centred));
    }
    const floor = pass.rows.length < pass.scannedRows ? (pass.products[pass.rows.length - 1] ?? Number.POSITIVE_INFINITY) : Number.NEGATIVE_INFINITY;
    return { rows, products, floor, shift: distance(centred, pass.query) };
  }

  /** `nearest` on this thread, from the first pass's products when they were taken already (`first`). */
  private nearestFrom(centred: Float32Array, mean: CentredMean, towardMean: number, exclude: string | undefined, first: FirstRound | TopProducts | null): Nearest | null {
    const { data, norms, dimensions: d, ids } = this;
    const count = ids.length;
    if (count === 0) return null;
    const m = mean.mean;
    const drift = this.base === null ? Infinity : distance(this.base, m);
    if (drift > REBASE_DRIFT) this.rebase(m);
    const moved = drift > REBASE_DRIFT ? 0 : drift;
    const { towardBase, upper } = this;
    // Pass 1, a bound per row: u·c from the native float32 kernel, within `error` of the exact value (rounding
    // the operands and each float32 sum: at most d + 4 roundings of 2⁻²⁴ over Σ|u_i c_i| <= |c|, and the
    // kernel's 1 - product; doubled, as for the search's centroid scan); c·m within |c|·|m - m₀| of c·m₀, so
    // |c - m|² lies in [low, high].
    let bestLower = Number.NEGATIVE_INFINITY;
    // How far the products may be from those with `centred` (a pass taken with the feature centred on an earlier mean).
    let shift = 0;
    // A row's bounds from `product`, within rounding of u·c or above it: sets `upper[row]`, and returns the
    // lower bound, which holds when `product` is the row's own.
    const bound = (row: number, product: number): number => {
      const n = norms[row]!;
      const error = 2 * ((d + 4) * 2 ** -24 * n + 2 ** -22 * (1 + n)) + SLACK + shift * n;
      const spread = 2 * n * moved + SLACK;
      const centre2 = n * n - 2 * towardBase[row]! + mean.norm2;
      const low = centre2 - spread;
      const high = centre2 + spread;
      const nLow = product - towardMean - error;
      const nHigh = product - towardMean + error;
      if (low <= 1e-12) {
        // Near the mean the full scan may give 0 there instead of the quotient.
        upper[row] = nHigh > 0 ? Number.POSITIVE_INFINITY : 0;
        return nLow < 0 ? Number.NEGATIVE_INFINITY : 0;
      }
      upper[row] = nHigh / Math.sqrt(nHigh >= 0 ? low : high);
      return nLow / Math.sqrt(nLow >= 0 ? high : low);
    };
    const excluded = exclude === undefined ? -1 : (this.rowOf.get(exclude) ?? -1);
    // The kernel is asked for the best `want` products only: sorting every row's product cost more than the
    // products themselves (4,300 rows of 768: 3.0 ms for all, 1.2 ms for 64). A row it did not return has a
    // product at most the last one returned, which bounds it. Should that leave more rows to compute in
    // full than were returned, it asks for four times as many.
    for (let want = Math.min(count, FIRST_WANT); ; want = Math.min(count, want * 4)) {
      // `first`, when given, is this first round's answer (the same `want`).
      const round = first ?? topInnerProducts(data.subarray(0, count * d), centred, d, want);
      const { rows: order, products } = round;
      shift = (round as Partial<FirstRound>).shift ?? 0;
      first = null;
      bestLower = Number.NEGATIVE_INFINITY;
      if (order.length < count) {
        const last = (round as Partial<FirstRound>).floor ?? products[products.length - 1] ?? Number.POSITIVE_INFINITY;
        for (let row = 0; row < count; row++) bound(row, last);
      }
      for (let j = 0; j < order.length; j++) {
        const row = order[j]!;
        if (row === excluded) continue;
        const lower = bound(row, products[j]!);
        if (lower > bestLower) bestLower = lower;
      }
      if (excluded >= 0) upper[excluded] = Number.NEGATIVE_INFINITY;
      if (want >= count) break;
      let open = 0;
      for (let row = 0; row < count; row++) if (upper[row]! >= bestLower - SLACK) open++;
      if (open <= want) break;
    }
    // Pass 2: the exact similarity, as the full scan computes it, for the rows that can still be best.
    let bestRow = -1;
    let bestSimilarity = 0;
    for (let row = 0; row < count; row++) {
      if (upper[row]! < bestLower - SLACK) continue;
      if (exclude !== undefined && ids[row] === exclude) continue;
      let withFeature = 0;
      let withMean = 0;
      for (let i = 0, at = row * d; i < d; i++, at++) {
        const c = data[at]!;
        withFeature += centred[i]! * c;
        withMean += c * m[i]!;
      }
      const n = norms[row]!;
      const length2 = n * n - 2 * withMean + mean.norm2;
      const similarity = length2 <= 1e-12 ? 0 : (withFeature - towardMean) / Math.sqrt(length2);
      if (bestRow < 0 || similarity > bestSimilarity) {
        bestRow = row;
        bestSimilarity = similarity;
      }
    }
    return bestRow < 0 ? null : { id: ids[bestRow]!, similarity: bestSimilarity };
  }

  /** Takes every row's `c·m₀` against `mean` (one dot product a row). */
  private rebase(mean: Float32Array): void {
    this.base = Float32Array.from(mean);
    for (let row = 0; row < this.ids.length; row++) this.towardBase[row] = this.rowDot(row, this.base);
  }

  private rowDot(row: number, v: Float32Array): number {
    let sum = 0;
    for (let i = 0, at = row * this.dimensions; i < this.dimensions; i++, at++) sum += this.data[at]! * v[i]!;
    return sum;
  }

  private grow(): void {
    const capacity = Math.max(64, Math.ceil(this.norms.length * 1.5));
    const data = sharedFloats(capacity * this.dimensions);
    data.set(this.data);
    this.data = data;
    this.norms = resized(this.norms, capacity);
    this.writtenAt = resized(this.writtenAt, capacity);
    this.towardBase = resized(this.towardBase, capacity);
    this.upper = new Float64Array(capacity);
  }
}

type TopProducts = { rows: number[]; products: number[] };
/** A first round from a pass: rows not listed have products at most `floor` (within `shift` times their norm). */
type FirstRound = TopProducts & { floor: number; shift: number };

/** A longer copy of `array`, zero-filled past its end. */
function resized<T extends Float32Array | Float64Array>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}

/** |a - b|. */
function distance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! - b[i]!;
    sum += x * x;
  }
  return Math.sqrt(sum);
}
