/**
 * The scan thread (`scanThread.ts`): usearch's exact scan of a shared int8 or float32 matrix, off the
 * event loop that answers searches.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type * as Usearch from 'usearch';
import { candidateRescorer } from './rescore.js';
import type { ScanReply, ScanRequest } from './scanThread.js';

// Through require: an ESM import of usearch never settles inside a worker started through tsx's loader.
const { exactSearch, MetricKind } = createRequire(import.meta.url)('usearch') as typeof Usearch;

const port = parentPort!;

const rescore = candidateRescorer({ exactSearch, MetricKind });

port.on('message', (m: ScanRequest) => {
  let reply: ScanReply;
  try {
    const rows = m.query instanceof Float32Array ? new Float32Array(m.data, 0, m.rows * m.dims) : new Int8Array(m.data, 0, m.rows * m.dims);
    const found = exactSearch(rows, m.query, m.dims, m.count, MetricKind.IP, 1) as Usearch.Matches;
    const best = Uint32Array.from(found.keys, Number);
    const fine = m.rescore && best.length > 0 ? rescore(new Float32Array(m.rescore.data), m.dims, best, m.rescore.query, m.rescore.want) : undefined;
    reply = { id: m.id, rows: best, distances: Float32Array.from(found.distances), ...(fine ? { fine } : {}) };
  } catch (err) {
    reply = { id: m.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
// Messages posted before this module finished loading are not delivered: the caller waits for this one.
port.postMessage({ ready: true });
