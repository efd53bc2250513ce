import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Logger } from './logger.js';

/** Parses the environment, or prints every problem and exits 2 (a configuration error, not a crash). */
export function loadConfigOrExit(env: Record<string, string | undefined>): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
}

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits 0; exits 1 if it overruns the deadline. `stop`
 * carries the service's fixed order (readiness fails first, then HTTP, then workers, then stores).
 */
export function onShutdownSignal(logger: Logger, deadlineMs: number, stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs).unref();
    stop(signal).then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handle('SIGTERM'));
  process.on('SIGINT', () => handle('SIGINT'));
}

/** Runs a service's main; an unexpected start-up failure is printed and exits 1. */
export function runMain(main: () => Promise<void>): void {
  const unsupported = unsupportedNode(process.versions.node);
  if (unsupported) {
    console.error(unsupported);
    process.exit(1);
  }
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/** The oldest Node.js major Engram runs on (`engines` in package.json). */
export const MIN_NODE_MAJOR = 22;

/**
 * Why this Node.js cannot run Engram, or null. Node 20 starts and then fails searches at scale: its
 * N-API cannot hand a SharedArrayBuffer to a native addon, and the vector mirror's int8 scan (from 16k
 * chunks) passes one to usearch.
 */
export function unsupportedNode(version: string): string | null {
  const major = Number(version.split('.')[0]);
  return major >= MIN_NODE_MAJOR ? null : `Engram needs Node.js ${MIN_NODE_MAJOR} or newer; this is ${version}. Install Node ${MIN_NODE_MAJOR} LTS (the README says how).`;
}

/**
 * How far each V8 heap of the process (the event loop's and every worker thread's) may grow past what its
 * last full collection kept before the next one, in percent; 0 leaves it to V8, which grows a heap by up to
 * 4x when collecting is cheap next to allocating. An import allocates fast and keeps little: at 100k items
 * the event loop's heap kept 200-300 MB and grew to 700-1,000 MB between full collections, and V8 hands
 * committed pages back only once the process is idle, so the resident set stayed that high while
 * searches ran. Process-wide and read at each collection, so it holds from the next one on.
 */
export function setHeapGrowth(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0 || percent > 300) throw new RangeError(`a heap growth is an integer percent from 0 to 300 (got ${percent})`);
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * The semi-space size (MB) of worker threads started from now on; 0 gives them V8's own (16 MB), whatever
 * semi-space size the process was started with (`scripts/allocator.sh` starts it with 32 MB ones for the
 * event loop, where 16 concurrent searches' objects otherwise reached the old generation). A thread's
 * isolate reads the flag when it is created: with the process's 64 MB the embedded database's thread kept
 * ~150 MB of heap during an import (55 MB with V8's own) and a re-cluster's compute thread ~130 MB, for no
 * measured gain in either. 8 MB (the default, `ENGRAM_WORKER_SEMI_SPACE_MB`): the benchmark's memory peak at
 * 100k items (16 clients during an import and its re-cluster) 1,755 against 1,850 MB, the import as fast
 * (284.4 against 281.8 items/s); 4 MB took as much off the peak but imported at 257.2 items/s
 * (`bench/results/scale-2026-12-01-s42-account.md`).
 */
export function workersAtYoungGeneration(semiSpaceMb: number): void {
  if (!Number.isInteger(semiSpaceMb) || semiSpaceMb < 0 || semiSpaceMb > 1024) throw new RangeError(`a semi-space size is a whole number of MB from 0 to 1024 (got ${semiSpaceMb})`);
  setFlagsFromString(`--max-semi-space-size=${semiSpaceMb}`);
}
