/**
 * The scan thread (`scanThread.ts`): usearch's exact scan of a shared int8 or float32 matrix, and the
 * approximate graphs of large matrices (`graph.ts`), off the event loop that answers searches.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type * as Usearch from 'usearch';
import { rowScorer } from './rows.js';
import { GRAPH_CONNECTIVITY, GRAPH_EXPANSION_ADD, GRAPH_EXPANSION_SEARCH } from './graphParams.js';
import type { GraphRequest, GraphRescore, ScanFound, ScanReply, ScanRequest } from './scanThread.js';

// Through require: an ESM import of usearch never settles inside a worker started through tsx's loader.
const { exactSearch, Index, MetricKind, ScalarKind } = createRequire(import.meta.url)('usearch') as typeof Usearch;

const port = parentPort!;

const scorer = rowScorer({ exactSearch, MetricKind });

/** A graph, and the row of the matrix each of its chunks is at (by key), as the event loop last said. */
interface HeldGraph {
  index: Usearch.Index;
  dims: number;
  rowOf: Map<number, number>;
}

const graphs = new Map<number, HeldGraph>();

/** A graph operation; a reply for those that ask for one. */
function onGraph(m: GraphRequest): ScanReply | null {
  switch (m.op) {
    case 'graph-add': {
      let graph = graphs.get(m.graph);
      if (!graph && m.create) {
        const index = new Index({
          dimensions: m.dims,
          metric: MetricKind.IP,
          quantization: ScalarKind.I8,
          connectivity: GRAPH_CONNECTIVITY,
          expansion_add: GRAPH_EXPANSION_ADD,
          expansion_search: GRAPH_EXPANSION_SEARCH,
          multi: false,
        });
        graph = { index, dims: m.dims, rowOf: new Map() };
        graphs.set(m.graph, graph);
      }
      if (graph && m.keys.length > 0) {
        graph.index.add(BigUint64Array.from(m.keys, (k) => BigInt(k)), m.vectors, 1);
        m.keys.forEach((key, i) => graph.rowOf.set(key, m.rows[i]!));
      }
      return m.id === undefined ? null : { id: m.id, rows: new Float64Array(0), distances: new Float32Array(0) };
    }
    case 'graph-move': {
      const graph = graphs.get(m.graph);
      if (graph) m.keys.forEach((key, i) => graph.rowOf.has(key) && graph.rowOf.set(key, m.rows[i]!));
      return null;
    }
    case 'graph-remove': {
      const graph = graphs.get(m.graph);
      if (graph) {
        for (const key of m.keys) {
          graph.index.remove(BigInt(key));
          graph.rowOf.delete(key);
        }
      }
      return null;
    }
    case 'graph-drop':
      graphs.delete(m.graph);
      return null;
    case 'graph-search': {
      const graph = graphs.get(m.graph);
      if (!graph) throw new Error(`no graph ${m.graph} on this thread`);
      const size = graph.index.size();
      if (size === 0) return { id: m.id, rows: new Float64Array(0), distances: new Float32Array(0) };
      const found = graph.index.search(m.query, Math.min(m.count, size), 1);
      const n = Math.min(m.keep, found.keys.length);
      const keys = Float64Array.from(found.keys.subarray(0, n), Number);
      return { id: m.id, rows: keys, distances: Float32Array.from(found.distances.subarray(0, n)), ...(m.rescore ? { fine: rescoreKeys(graph, keys, m.query, m.rescore) } : {}) };
    }
  }
}

/**
 * A graph search's chunks scored exactly on the matrix's 16-bit rows at the rows last heard for their keys, the
 * best `want` kept, each with its key: the event loop keeps the answer if every chunk is still at that row.
 */
function rescoreKeys(graph: HeldGraph, keys: Float64Array, query: Float32Array, { data, want }: GraphRescore): ScanFound | undefined {
  const rows: number[] = [];
  const keyOfRow = new Map<number, number>();
  for (const key of keys) {
    const row = graph.rowOf.get(key);
    if (row === undefined) continue;
    rows.push(row);
    keyOfRow.set(row, key);
  }
  if (rows.length === 0) return undefined;
  const fine = scorer.rescore(new Int16Array(data), graph.dims, rows, query, want);
  return { ...fine, keys: Float64Array.from(fine.rows, (row) => keyOfRow.get(row)!) };
}

port.on('message', (m: ScanRequest | GraphRequest) => {
  let reply: ScanReply | null;
  try {
    if ('op' in m) {
      reply = onGraph(m);
      if (reply) port.postMessage(reply);
      return;
    }
    const rows = m.query instanceof Float32Array ? new Float32Array(m.data, 0, m.rows * m.dims) : new Int8Array(m.data, 0, m.rows * m.dims);
    // Several float32 queries at once (`query` holds them row after row): `count` rows each, in order.
    if (m.query.length > m.dims && m.query instanceof Float32Array) {
      const batch = exactSearch(rows, m.query, m.dims, m.count, MetricKind.IP, 1) as Usearch.BatchMatches;
      if (batch.counts.some((n) => Number(n) !== m.count)) throw new Error(`a batch scan found fewer than ${m.count} rows for a query`);
      reply = { id: m.id, rows: Uint32Array.from(batch.keys, Number), distances: Float32Array.from(batch.distances) };
      port.postMessage(reply);
      return;
    }
    const found = exactSearch(rows, m.query, m.dims, m.count, MetricKind.IP, 1) as Usearch.Matches;
    const best = Uint32Array.from(found.keys, Number);
    const fine = m.rescore && best.length > 0 ? scorer.rescore(new Int16Array(m.rescore.data), m.dims, best, m.rescore.query, m.rescore.want) : undefined;
    reply = { id: m.id, rows: best, distances: Float32Array.from(found.distances), ...(fine ? { fine } : {}) };
  } catch (err) {
    const id = 'op' in m ? ('id' in m ? m.id : undefined) : m.id;
    if (id === undefined) return;
    reply = { id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
// Messages posted before this module finished loading are not delivered: the caller waits for this one.
port.postMessage({ ready: true });
