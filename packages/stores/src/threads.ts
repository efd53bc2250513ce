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
import { Worker, type WorkerOptions } from 'node:worker_threads';

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
