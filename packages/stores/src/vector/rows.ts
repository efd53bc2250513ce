import type * as Usearch from 'usearch';

/**
 * The vector mirror holds its unit vectors in 16 bits: each value (within [-1, 1]) as the nearest multiple
 * of ROW_UNIT, in an Int16Array. That is half the memory of float32 rows: at 100k chunks of 512 dimensions,
 * 102 MiB instead of 204, and three times either at 1,536 dimensions. A value is within 1.6e-5 of its float32
 * one, so an inner product of two unit vectors moves by about 1e-5.
 */
const ROW_SCALE = 32_767;
export const ROW_UNIT = 1 / ROW_SCALE;

/** Writes a unit vector's values into `rows` from `at`, in 16 bits. */
export function encodeRow(unit: ArrayLike<number>, rows: Int16Array, at: number): void {
  for (let i = 0; i < unit.length; i++) rows[at + i] = Math.round(unit[i]! * ROW_SCALE);
}

/** The `dims` values of `rows` from `at` as float32, into `out` from `outAt`. */
export function decodeRow(rows: Int16Array, at: number, dims: number, out = new Float32Array(dims), outAt = 0): Float32Array {
  for (let i = 0; i < dims; i++) out[outAt + i] = rows[at + i]! * ROW_UNIT;
  return out;
}

/** Rows converted to float32 at a time by a full scan (`scan`): 2 MiB of scratch at 512 dimensions. */
const SCAN_BLOCK_ROWS = 1_024;

type Found = { rows: Uint32Array; distances: Float32Array };

/**
 * Exact inner products with 16-bit rows, on the thread that calls it (the scan thread, or the event loop),
 * by usearch's native float32 kernel, which takes no 16-bit rows: the rows are converted into float32
 * scratch space kept across calls (a typed array's `set` converts natively: ~0.3 ms for 600 rows of 512
 * values, against ~0.1 ms to copy float32 ones; a fresh 2 MB array a search cost ~9 ms of page faults on a
 * 2-core VM) and scanned with a query scaled by ROW_UNIT, so each product is the true one. `usearch` is
 * passed in: the scan thread loads it through `require`.
 */
export function rowScorer(usearch: Pick<typeof Usearch, 'exactSearch' | 'MetricKind'>) {
  let scratch = new Float32Array(0);
  const room = (values: number): Float32Array => {
    if (scratch.length < values) scratch = new Float32Array(Math.max(values, scratch.length * 2));
    return scratch;
  };
  const scaled = (query: Float32Array): Float32Array => Float32Array.from(query, (x) => x * ROW_UNIT);
  /** The best `want` of the first `n` rows of the scratch, best first, with distances 1 - product. */
  const best = (n: number, dims: number, query: Float32Array, want: number): Usearch.Matches =>
    usearch.exactSearch(scratch.subarray(0, n * dims), query, dims, Math.min(want, n), usearch.MetricKind.IP, 1) as Usearch.Matches;

  return {
    /** The best `want` of `candidates` (rows of `matrix`, `dims` a row) by inner product with `query`, best first; distances are 1 - product. */
    rescore(matrix: Int16Array, dims: number, candidates: ArrayLike<number>, query: Float32Array, want: number): Found {
      const n = candidates.length;
      const space = room(n * dims);
      for (let i = 0; i < n; i++) {
        const row = candidates[i]!;
        space.set(matrix.subarray(row * dims, (row + 1) * dims), i * dims);
      }
      const found = best(n, dims, scaled(query), want);
      return { rows: Uint32Array.from(found.keys, (i) => candidates[Number(i)]!), distances: Float32Array.from(found.distances) };
    },
    /** The best `want` of the matrix's first `count` rows, as `rescore`, a block of rows at a time. */
    scan(matrix: Int16Array, dims: number, count: number, query: Float32Array, want: number): Found {
      const q = scaled(query);
      const rows: number[] = [];
      const distances: number[] = [];
      for (let start = 0; start < count; start += SCAN_BLOCK_ROWS) {
        const n = Math.min(SCAN_BLOCK_ROWS, count - start);
        room(n * dims).set(matrix.subarray(start * dims, (start + n) * dims));
        const found = best(n, dims, q, want);
        found.keys.forEach((key, i) => {
          rows.push(start + Number(key));
          distances.push(found.distances[i]!);
        });
      }
      const order = rows.map((_, i) => i).sort((a, b) => distances[a]! - distances[b]! || rows[a]! - rows[b]!);
      const kept = order.slice(0, Math.min(want, order.length));
      return { rows: Uint32Array.from(kept, (i) => rows[i]!), distances: Float32Array.from(kept, (i) => distances[i]!) };
    },
  };
}
