/**
 * The memory index's int8 pre-scan in a thread of its own. At 100k items (102k chunks of 512 dims) that
 * scan was a quarter of the event loop's time under 16 searching clients, with the second core mostly
 * idle; here it runs beside the search's other paths. The matrix is a SharedArrayBuffer, so a scan copies
 * only the query. The scan may read rows the event loop is writing meanwhile: it only proposes candidates,
 * which the caller scores again exactly on the rows as they are once the scan returns.
 */
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '../threads.js';

export interface ScanRequest {
  id: number;
  data: SharedArrayBuffer;
  rows: number;
  dims: number;
  query: Int8Array;
  count: number;
}

export type ScanReply = { id: number; rows: Uint32Array; distances: Float32Array } | { id: number; error: string };

interface ScanThread {
  worker: Worker;
  /** Settles once the thread's module has loaded: a message sent earlier would be lost. */
  started: Promise<void>;
}

let thread: ScanThread | null = null;
/** Why the thread could not start: then every scan fails at once (the caller scans itself), none respawns it. */
let unavailable: Error | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve: (r: { rows: Uint32Array; distances: Float32Array }) => void; reject: (e: Error) => void }>();

function start(): ScanThread {
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
    if ('error' in m) entry.reject(new Error(`int8 scan failed: ${m.error}`));
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

/** The `count` best rows of the shared int8 matrix's first `rows` rows by inner product with `query`. */
export async function scanInt8(data: SharedArrayBuffer, rows: number, dims: number, query: Int8Array, count: number): Promise<{ rows: Uint32Array; distances: Float32Array }> {
  if (unavailable) throw unavailable;
  thread ??= start();
  const { worker, started } = thread;
  worker.ref();
  const id = nextId++;
  const answer = new Promise<{ rows: Uint32Array; distances: Float32Array }>((resolve, reject) => waiting.set(id, { resolve, reject }));
  try {
    await started;
  } catch (err) {
    waiting.delete(id);
    throw err;
  }
  worker.postMessage({ id, data, rows, dims, query, count } satisfies ScanRequest);
  return answer;
}
