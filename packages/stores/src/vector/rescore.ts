import type * as Usearch from 'usearch';

/**
 * Exact float32 scores for an int8 scan's candidates, on the thread that calls it (the scan thread, or the
 * event loop when rows moved meanwhile): the candidates' rows are copied together into scratch space kept
 * across scans (a fresh 2 MB array a search cost ~9 ms of page faults on a 2-core VM) and scanned with
 * usearch's native kernel. `usearch` is passed in: the scan thread loads it through `require`.
 */
export function candidateRescorer(usearch: Pick<typeof Usearch, 'exactSearch' | 'MetricKind'>) {
  let scratch = new Float32Array(0);
  /** The best `want` of `candidates` (rows of `matrix`, `dims` a row) by inner product with `query`, best first; distances are 1 - product. */
  return (matrix: Float32Array, dims: number, candidates: ArrayLike<number>, query: Float32Array, want: number): { rows: Uint32Array; distances: Float32Array } => {
    const n = candidates.length;
    if (scratch.length < n * dims) scratch = new Float32Array(Math.max(n * dims, scratch.length * 2));
    for (let i = 0; i < n; i++) {
      const row = candidates[i]!;
      scratch.set(matrix.subarray(row * dims, (row + 1) * dims), i * dims);
    }
    const found = usearch.exactSearch(scratch.subarray(0, n * dims), query, dims, Math.min(want, n), usearch.MetricKind.IP, 1) as Usearch.Matches;
    return { rows: Uint32Array.from(found.keys, (i) => candidates[Number(i)]!), distances: Float32Array.from(found.distances) };
  };
}
