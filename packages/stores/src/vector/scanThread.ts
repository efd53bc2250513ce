/**
 * Exact inner-product scans of shared matrices in a thread of their own: the memory index's int8
 * pre-scan, and the cluster path's float32 scan of a workspace's centroids. At 100k items (102k chunks
 * of 512 dims) the int8 scan was a quarter of the event loop's time under 16 searching clients, and the
 * centroid scan a further 6% (on a 2-core EPYC VM), with the second core mostly idle; here they run beside
 * the search's other paths. A matrix is a SharedArrayBuffer, so a scan copies only the query. The int8
 * scan's candidates are scored again exactly here, on the float32 rows (shared too), so the event loop does
 * no vector arithmetic for a search. Rows the event loop writes meanwhile are appended past the rows
 * scanned; a removal moves a row, and then the caller scores the candidates again on its own thread.
 *
 * The thread also holds the approximate graphs of large matrices (`graph.ts`): usearch's HNSW index is a
 * native object of the thread that made it, so the event loop sends each chunk's vector here as it is
 * written and asks for a query's nearest keys, and its CPU for searches and additions is this thread's.
 * A graph dies with its thread: `threadEpoch()` moves when a thread starts, and a graph of an earlier one
 * is built again.
 */
import type { Transferable, Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '../threads.js';

export interface ScanRequest {
  id: number;
  /** The matrix, row-major, of the query's element type. */
  data: SharedArrayBuffer;
  rows: number;
  dims: number;
  query: Int8Array | Float32Array;
  count: number;
  /**
   * With an int8 scan: its candidates scored again exactly on the float32 matrix (`data`, row for row the
   * same rows), the best `want` kept, before the reply: the event loop then does no vector arithmetic.
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
  | { op: 'graph-add'; id?: number; graph: number; dims: number; keys: Float64Array; vectors: Float32Array; create?: boolean }
  | { op: 'graph-remove'; graph: number; keys: Float64Array }
  | { op: 'graph-drop'; graph: number }
  | { op: 'graph-search'; id: number; graph: number; query: Float32Array; count: number; keep: number };

/** `rows`: the scan's best rows; `fine`: with `rescore`, the best `want` of them by the float32 matrix. A graph search's rows are keys. */
export type ScanReply = { id: number; rows: Uint32Array | Float64Array; distances: Float32Array; fine?: ScanFound } | { id: number; error: string };
export interface ScanFound {
  rows: Uint32Array;
  distances: Float32Array;
}

interface ScanThread {
  worker: Worker;
  /** Settles once the thread's module has loaded: a message sent earlier would be lost. */
  started: Promise<void>;
}

let thread: ScanThread | null = null;
let epoch = 0;
/** Why the thread could not start: then every scan fails at once (the caller scans itself), none respawns it. */
let unavailable: Error | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve: (r: ScanReplyFound) => void; reject: (e: Error) => void }>();
type ScanReplyFound = { rows: Uint32Array | Float64Array; distances: Float32Array; fine?: ScanFound };

function start(): ScanThread {
  epoch++;
  const worker = spawnModuleWorker(new URL(import.meta.url.endsWith('.ts') ? './scanWorker.ts' : './scanWorker.js', import.meta.url));
  let isReady = false;
  let ready: () => void = () => undefined;
  let failed: (e: Error) => void = () => undefined;
  const started = new Promise<void>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  const self: ScanThread = { worker, started };
  worker.on('message', (m: ScanReply | { ready: true }) => {
    if ('ready' in m) {
      isReady = true;
      return ready();
    }
    const entry = waiting.get(m.id);
    if (!entry) return;
    waiting.delete(m.id);
    // Held only while a scan is pending: an idle scan thread keeps no process alive.
    if (waiting.size === 0) worker.unref();
    if ('error' in m) entry.reject(new Error(`vector scan failed: ${m.error}`));
    else entry.resolve(m);
  });
  const fail = (err: Error) => {
    if (thread === self) thread = null;
    if (!isReady) unavailable = err;
    failed(err);
    for (const entry of waiting.values()) entry.reject(err);
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the scan thread exited with code ${code}`)));
  return self;
}

/**
 * The `count` best rows of a shared matrix's first `rows` rows by inner product with `query` (the matrix
 * holds the query's element type: int8 or float32), best first; `distances` are 1 - product. With
 * `rescore` (an int8 scan), also those rows' best `rescore.want` by the float32 matrix (`fine`).
 */
export async function scanShared(
  data: SharedArrayBuffer,
  rows: number,
  dims: number,
  query: Int8Array | Float32Array,
  count: number,
  rescore?: Rescore,
): Promise<ScanFound & { fine?: ScanFound }> {
  return request((id) => ({ id, data, rows, dims, query, count, ...(rescore ? { rescore } : {}) }) satisfies ScanRequest) as Promise<ScanFound & { fine?: ScanFound }>;
}

/** Sends a message that asks for a reply, starting the thread if it is not running. */
async function request(message: (id: number) => ScanRequest | GraphRequest, transfer: Transferable[] = []): Promise<ScanReplyFound> {
  if (unavailable) throw unavailable;
  thread ??= start();
  const { worker, started } = thread;
  worker.ref();
  const id = nextId++;
  const answer = new Promise<ScanReplyFound>((resolve, reject) => waiting.set(id, { resolve, reject }));
  try {
    await started;
  } catch (err) {
    waiting.delete(id);
    throw err;
  }
  worker.postMessage(message(id), transfer);
  return answer;
}

/** Which start of the thread is running: a graph of an earlier one is gone. */
export function threadEpoch(): number {
  return epoch;
}

/** Starts the thread if it is not running and says which start it is (null when it cannot start). */
export function runningEpoch(): number | null {
  if (unavailable) return null;
  thread ??= start();
  return epoch;
}

/**
 * Adds chunks to a graph (`vectors` is moved to the thread, not copied); `create` makes the graph, and
 * chunks for a graph the thread does not hold (one made by a thread that has since died) are dropped.
 * Resolves once they are in it; `acked: false` sends them without waiting (a write's few chunks).
 */
export function graphAdd(graph: number, dims: number, keys: Float64Array, vectors: Float32Array, options: { acked: boolean; create?: boolean }): Promise<void> {
  const message = { op: 'graph-add', graph, dims, keys, vectors, ...(options.create ? { create: true } : {}) } as const;
  if (options.acked) return request((id) => ({ ...message, id }), [vectors.buffer as ArrayBuffer]).then(() => undefined);
  return post(message, [vectors.buffer as ArrayBuffer]);
}

export function graphRemove(graph: number, keys: Float64Array): Promise<void> {
  return post({ op: 'graph-remove', graph, keys });
}

export function graphDrop(graph: number): Promise<void> {
  return post({ op: 'graph-drop', graph });
}

/** The keys of (about) the `keep` chunks nearest to `query` among the graph's `count` nearest by its int8 distances, nearest first. */
export async function graphSearch(graph: number, query: Float32Array, count: number, keep: number): Promise<Float64Array> {
  const found = await request((id) => ({ op: 'graph-search', id, graph, query, count, keep }));
  return found.rows as Float64Array;
}

/** A message that needs no reply, sent once the thread has started (in order with every other message). */
async function post(message: GraphRequest, transfer: Transferable[] = []): Promise<void> {
  if (unavailable) throw unavailable;
  thread ??= start();
  const { worker, started } = thread;
  await started;
  worker.postMessage(message, transfer);
}
