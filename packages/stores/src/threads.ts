/**
 * Starting a worker thread from a module of this repository. Plain JavaScript starts directly;
 * TypeScript (the repo runs on tsx) through a bootstrap that loads it with tsx's `tsImport`, since an
 * inherited `--import tsx` does not apply inside workers on every Node version.
 */
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type Transferable, type WorkerOptions } from 'node:worker_threads';

/** A thread's memory: its V8 heap and, for the embedded database, its WebAssembly heap (outside V8's). */
export interface ThreadMemory {
  /** The module it runs, as `<dir>/<file>` (`pglite/worker`, `vector/scanWorker`, ...). */
  thread: string;
  heapUsedBytes: number;
  heapTotalBytes: number;
  /** Buffers and typed arrays the thread holds outside its heap (model weights, tensors), its WebAssembly memory apart. */
  externalBytes: number;
  wasmBytes: number;
}

const live = new Map<Worker, { thread: string; wasmBytes?: () => number }>();

/** Threads started here and still running, with what each holds (V8 heap, external buffers, WebAssembly memory). */
export async function threadMemory(): Promise<ThreadMemory[]> {
  const out = await Promise.all(
    [...live].map(async ([worker, { thread, wasmBytes }]) => {
      // Node >= 22.16; @types/node here predates it.
      const stats = (worker as Worker & { getHeapStatistics?: () => Promise<{ used_heap_size: number; total_heap_size: number; external_memory?: number }> }).getHeapStatistics;
      const heap = stats ? await stats.call(worker).catch(() => null) : null;
      if (!heap) return null;
      const wasm = wasmBytes?.() ?? 0;
      // V8 counts a WebAssembly memory as external: reported apart, not twice.
      return { thread, heapUsedBytes: heap.used_heap_size, heapTotalBytes: heap.total_heap_size, externalBytes: Math.max(0, (heap.external_memory ?? 0) - wasm), wasmBytes: wasm };
    }),
  );
  return out.filter((m): m is ThreadMemory => m !== null);
}

/** Reports a thread's WebAssembly memory in `threadMemory`, apart from the external memory V8 counts it in. */
export function reportWasmBytes(worker: Worker, bytes: () => number): void {
  const entry = live.get(worker);
  if (entry) entry.wasmBytes = bytes;
}

export function spawnModuleWorker(url: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const worker = startWorker(url, options);
  live.set(worker, { thread: `${basename(dirname(url.pathname))}/${basename(url.pathname).replace(/\.[jt]s$/, '')}` });
  worker.once('exit', () => live.delete(worker));
  return worker;
}

function startWorker(url: URL, options: Omit<WorkerOptions, 'eval'>): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, { import?: { default?: string } } | string> };
  const entry = manifest.exports?.['./esm/api'];
  const relative = typeof entry === 'object' ? entry.import?.default : undefined;
  if (!relative) throw new Error(`tsx does not export ./esm/api; cannot start the TypeScript worker ${url.pathname}`);
  const api = pathToFileURL(join(dirname(manifestPath), relative)).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${JSON.stringify(url.href)}, { parentURL: ${JSON.stringify(url.href)} }));`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * A thread that answers requests (the vector scan thread, the lexical thread): started on first use and again
 * on the next use after it died (what it held died with it: `epoch` moves), and holding the process alive
 * only while a reply is pending. The thread's module posts `{ ready: true }` once loaded (a message sent
 * earlier would be lost), and answers each message that has an `id` with a reply of that `id`, or
 * `{ id, error }`. Should the thread fail to start, every later request fails at once (the callers do the
 * work themselves) and none starts it again.
 */
export interface ReplyingThread<Request, Reply extends { id: number }> {
  /** Sends the message made for a new id, starting the thread if it is not running, and resolves with its reply. */
  request(message: (id: number) => Request, transfer?: Transferable[]): Promise<Reply>;
  /** Sends a message that needs no reply, once the thread has started (in order with every other message). */
  post(message: Request, transfer?: Transferable[]): Promise<void>;
  /** Which start of the thread is running, starting it if it is not (null when it cannot start). */
  epoch(): number | null;
  /** Which start ran last (0: none yet); no start. */
  lastEpoch(): number;
}

export function replyingThread<Request, Reply extends { id: number }>(url: URL, name: string): ReplyingThread<Request, Reply> {
  let current: { worker: Worker; started: Promise<void> } | null = null;
  let epoch = 0;
  let unavailable: Error | null = null;
  let nextId = 1;
  const waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (e: Error) => void }>();

  function start(): { worker: Worker; started: Promise<void> } {
    epoch++;
    const worker = spawnModuleWorker(url);
    let isReady = false;
    let ready: () => void = () => undefined;
    let failed: (e: Error) => void = () => undefined;
    const started = new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    // Its rejection is the callers' (each awaits it); none left unhandled here.
    started.catch(() => undefined);
    const self = { worker, started };
    worker.on('message', (m: Reply | { ready: true } | { id: number; error: string }) => {
      if ('ready' in m) {
        isReady = true;
        return ready();
      }
      const entry = waiting.get(m.id);
      if (!entry) return;
      waiting.delete(m.id);
      // Held only while a reply is pending: an idle thread keeps no process alive.
      if (waiting.size === 0) worker.unref();
      if ('error' in m) entry.reject(new Error(`${name} failed: ${m.error}`));
      else entry.resolve(m);
    });
    const fail = (err: Error) => {
      if (current === self) current = null;
      if (!isReady) unavailable = err;
      failed(err);
      for (const entry of waiting.values()) entry.reject(err);
      waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the ${name} thread exited with code ${code}`)));
    return self;
  }

  const running = () => {
    if (unavailable) throw unavailable;
    return (current ??= start());
  };

  return {
    async request(message, transfer = []) {
      const { worker, started } = running();
      worker.ref();
      const id = nextId++;
      const answer = new Promise<Reply>((resolve, reject) => waiting.set(id, { resolve, reject }));
      try {
        await started;
      } catch (err) {
        waiting.delete(id);
        throw err;
      }
      worker.postMessage(message(id), transfer);
      return answer;
    },
    async post(message, transfer = []) {
      const { worker, started } = running();
      await started;
      worker.postMessage(message, transfer);
    },
    epoch() {
      if (unavailable) return null;
      running();
      return epoch;
    },
    lastEpoch: () => epoch,
  };
}

/**
 * The nice value of a thread that does background work (a re-cluster's plan, the area model's counting):
 * the kernel gives a thread at nice 10 about a tenth of a nice-0 thread's share of a busy core, so a search's
 * threads (the event loop, the scan thread, the database thread) run first whenever both want the CPU, and the
 * background thread still has the whole core when nothing else does. `ENGRAM_BACKGROUND_NICE` (the runtime's
 * config) sets it for the process; 0 leaves background threads as they are.
 */
export const BACKGROUND_NICE = 10;

let backgroundNice = BACKGROUND_NICE;

/** Sets the nice value background threads started from now on take (0 to 19). */
export function setBackgroundNice(nice: number): void {
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) throw new RangeError(`a background nice value is an integer from 0 to 19 (got ${nice})`);
  backgroundNice = nice;
}

/** The nice value to start a background thread with: pass it to the thread, which calls `lowerThreadPriority` with it. */
export const backgroundNiceValue = (): number => backgroundNice;

/**
 * Lowers the calling thread's scheduling priority to `nice`; call it from inside the worker thread. On Linux a
 * nice value belongs to a thread (setpriority on pid 0 is the calling thread), so the rest of the process keeps
 * its priority; elsewhere it would lower the whole process, so there it does nothing. Returns whether the thread
 * now runs at `nice` or lower priority (false too where the system refuses).
 */
export function lowerThreadPriority(nice: number): boolean {
  if (process.platform !== 'linux' || !(nice > 0)) return false;
  try {
    if (getPriority() < nice) setPriority(Math.min(19, Math.floor(nice)));
    return true;
  } catch {
    return false;
  }
}
