/**
 * The scan thread (`scanThread.ts`): usearch's exact scan of a shared int8 or float32 matrix, off the
 * event loop that answers searches.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type * as Usearch from 'usearch';
import type { ScanFound, ScanReply, ScanRequest } from './scanThread.js';

// Through require: an ESM import of usearch never settles inside a worker started through tsx's loader.
const { exactSearch, MetricKind } = createRequire(import.meta.url)('usearch') as typeof Usearch;

const port = parentPort!;

/** The candidates' float32 rows, copied together for one native scan (kept across scans, grown as needed). */
let subset = new Float32Array(0);

/** The best `want` of `candidates` (rows of the float32 matrix) by inner product with `query`. */
function rescore(matrix: SharedArrayBuffer, dims: number, candidates: Uint32Array, query: Float32Array, want: number): ScanFound {
  const rows = new Float32Array(matrix);
  if (subset.length < candidates.length * dims) subset = new Float32Array(candidates.length * dims);
  for (let i = 0; i < candidates.length; i++) {
    const row = candidates[i]!;
    subset.set(rows.subarray(row * dims, (row + 1) * dims), i * dims);
  }
  const found = exactSearch(subset.subarray(0, candidates.length * dims), query, dims, Math.min(want, candidates.length), MetricKind.IP, 1) as Usearch.Matches;
  return { rows: Uint32Array.from(found.keys, (i) => candidates[Number(i)]!), distances: Float32Array.from(found.distances) };
}

port.on('message', (m: ScanRequest) => {
  let reply: ScanReply;
  try {
    const rows = m.query instanceof Float32Array ? new Float32Array(m.data, 0, m.rows * m.dims) : new Int8Array(m.data, 0, m.rows * m.dims);
    const found = exactSearch(rows, m.query, m.dims, m.count, MetricKind.IP, 1) as Usearch.Matches;
    const best = Uint32Array.from(found.keys, Number);
    const fine = m.rescore && best.length > 0 ? rescore(m.rescore.data, m.dims, best, m.rescore.query, m.rescore.want) : undefined;
    reply = { id: m.id, rows: best, distances: Float32Array.from(found.distances), ...(fine ? { fine } : {}) };
  } catch (err) {
    reply = { id: m.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
// Messages posted before this module finished loading are not delivered: the caller waits for this one.
port.postMessage({ ready: true });
