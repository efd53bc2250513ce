/**
 * Exact inner-product scans of shared matrices in a thread of their own: the memory index's int8
 * pre-scan, and the cluster path's float32 scan of a workspace's centroids. At 100k items (102k chunks
 * of 512 dims) the int8 scan was a quarter of the event loop's time under 16 searching clients, and the
 * centroid scan a further 6% (on a 2-core EPYC VM), with the second core mostly idle; here they run beside
 * the search's other paths. A matrix is a SharedArrayBuffer, so a scan copies only the query. The int8
 * scan's candidates are scored again exactly here, on the mirror's 16-bit rows (shared too), so the event
 * loop does no vector arithmetic for a search. Rows the event loop writes meanwhile are appended past the rows
 * scanned; a removal moves a row, and then the caller scores the candidates again on its own thread.
 *
 * The thread also holds the approximate graphs of large matrices (`graph.ts`): usearch's HNSW index is a
 * native object of the thread that made it, so the event loop sends each chunk's vector here as it is
 * written and asks for a query's nearest keys, and its CPU for searches and additions is this thread's.
 * It also hears each chunk's row of the matrix (as added, and as a removal moves it), and scores a graph
 * search's chunks exactly at those rows; the event loop checks each chunk is still there before it keeps
 * the answer. A graph dies with its thread: `threadEpoch()` moves when a thread starts, and a graph of an earlier one
 * is built again.
 */
import { replyingThread } from '../threads.js';

export interface ScanRequest {
  id: number;
  /** The matrix, row-major, of the query's element type. */
  data: SharedArrayBuffer;
  rows: number;
  dims: number;
  /** One query, or (float32, no `rescore`) several row after row: the reply then holds `count` rows for each, in order. */
  query: Int8Array | Float32Array;
  count: number;
  /**
   * With an int8 scan: its candidates scored again exactly on the 16-bit rows (`data`, row for row the
   * same rows: `rows.ts`), the best `want` kept, before the reply: the event loop then does no vector
   * arithmetic.
   */
  rescore?: Rescore;
}

export interface Rescore {
  data: SharedArrayBuffer;
  query: Float32Array;
  want: number;
}

/** Operations on a graph held by the thread (`graph` names it); `id` asks for a reply. */
export type GraphRequest =
  | { op: 'graph-add'; id?: number; graph: number; dims: number; keys: Float64Array; rows: Float64Array; vectors: Float32Array; create?: boolean }
  | { op: 'graph-remove'; graph: number; keys: Float64Array }
  | { op: 'graph-move'; graph: number; keys: Float64Array; rows: Float64Array }
  | { op: 'graph-drop'; graph: number }
  | { op: 'graph-search'; id: number; graph: number; query: Float32Array; count: number; keep: number; rescore?: GraphRescore };

/**
 * With a graph search: its chunks scored again exactly on the 16-bit rows (`data`: `rows.ts`), at the rows
 * the thread last heard of for their keys (`graph-add`, `graph-move`), the best `want` kept.
 */
export interface GraphRescore {
  data: SharedArrayBuffer;
  want: number;
}

/**
 * `rows`: the scan's best rows; `fine`: with `rescore`, the best `want` of them by the 16-bit rows. A
 * graph search's rows are keys, and its `fine` names each row's key (`keys`), for the caller to check.
 */
export type ScanReply = { id: number; rows: Uint32Array | Float64Array; distances: Float32Array; fine?: ScanFound } | { id: number; error: string };
export interface ScanFound {
  rows: Uint32Array;
  distances: Float32Array;
  keys?: Float64Array;
}

type ScanReplyFound = { id: number; rows: Uint32Array | Float64Array; distances: Float32Array; fine?: ScanFound };

const thread = replyingThread<ScanRequest | GraphRequest, ScanReplyFound>(new URL(import.meta.url.endsWith('.ts') ? './scanWorker.ts' : './scanWorker.js', import.meta.url), 'vector scan');

/**
 * The `count` best rows of a shared matrix's first `rows` rows by inner product with `query` (the matrix
 * holds the query's element type: int8 or float32), best first; `distances` are 1 - product. With
 * `rescore` (an int8 scan), also those rows' best `rescore.want` by the 16-bit rows (`fine`).
 */
export async function scanShared(
  data: SharedArrayBuffer,
  rows: number,
  dims: number,
  query: Int8Array | Float32Array,
  count: number,
  rescore?: Rescore,
): Promise<ScanFound & { fine?: ScanFound }> {
  return thread.request((id) => ({ id, data, rows, dims, query, count, ...(rescore ? { rescore } : {}) }) satisfies ScanRequest) as Promise<ScanFound & { fine?: ScanFound }>;
}

/** Which start of the thread is running: a graph of an earlier one is gone. */
export function threadEpoch(): number {
  return thread.lastEpoch();
}

/** Starts the thread if it is not running and says which start it is (null when it cannot start). */
export function runningEpoch(): number | null {
  return thread.epoch();
}

/**
 * Adds chunks to a graph (`vectors` is moved to the thread, not copied); `create` makes the graph, and
 * chunks for a graph the thread does not hold (one made by a thread that has since died) are dropped.
 * Resolves once they are in it; `acked: false` sends them without waiting (a write's few chunks).
 */
export function graphAdd(graph: number, dims: number, keys: Float64Array, rows: Float64Array, vectors: Float32Array, options: { acked: boolean; create?: boolean }): Promise<void> {
  const message = { op: 'graph-add', graph, dims, keys, rows, vectors, ...(options.create ? { create: true } : {}) } as const;
  if (options.acked) return thread.request((id) => ({ ...message, id }), [vectors.buffer as ArrayBuffer]).then(() => undefined);
  return thread.post(message, [vectors.buffer as ArrayBuffer]);
}

export function graphRemove(graph: number, keys: Float64Array): Promise<void> {
  return thread.post({ op: 'graph-remove', graph, keys });
}

/** Chunks of the graph now at other rows of the matrix (a removal moved them). */
export function graphMove(graph: number, keys: Float64Array, rows: Float64Array): Promise<void> {
  return thread.post({ op: 'graph-move', graph, keys, rows });
}

export function graphDrop(graph: number): Promise<void> {
  return thread.post({ op: 'graph-drop', graph });
}

/**
 * The keys of (about) the `keep` chunks nearest to `query` among the graph's `count` nearest by its int8
 * distances, nearest first; with `rescore`, also the best `rescore.want` of them by the 16-bit rows,
 * at the rows the thread knows for them (`fine`, with each row's key).
 */
export async function graphSearch(graph: number, query: Float32Array, count: number, keep: number, rescore?: GraphRescore): Promise<{ keys: Float64Array; fine?: ScanFound }> {
  const found = await thread.request((id) => ({ op: 'graph-search', id, graph, query, count, keep, ...(rescore ? { rescore } : {}) }));
  return { keys: found.rows as Float64Array, ...(found.fine ? { fine: found.fine } : {}) };
}
