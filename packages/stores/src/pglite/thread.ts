/**
 * The main thread's handle on the PGlite thread (`worker.ts`): the `Db` every repository uses, with each
 * statement posted to the thread and its rows posted back (structured clone: dates, arrays and JSON
 * values arrive as PGlite made them). Search and HTTP keep this event loop; the database's CPU work, an
 * import's writes above all, runs on another core.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Worker } from 'node:worker_threads';
import { copyFromSql, type QueryResult, type Queryable } from '../queryable.js';
import { reportWasmBytes, spawnModuleWorker } from '../threads.js';
import type { PgliteReply, PgliteRequest } from './protocol.js';

const workerUrl = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

type Pending = { resolve: (reply: Extract<PgliteReply, { ok: boolean }>) => void; reject: (err: Error) => void };
type Body<T> = T extends unknown ? Omit<T, 'id'> : never;

const interactiveContext = new AsyncLocalStorage<{ committedOnly: boolean }>();
const urgentContext = new AsyncLocalStorage<true>();

/**
 * Runs `fn` as background work that other background work waits for (the one step of an import that
 * runs a batch at a time): its statements go before other background statements waiting, after API
 * requests'. Inside an API request it changes nothing.
 */
export function runUrgent<T>(fn: () => T): T {
  return urgentContext.run(true, fn);
}

/** How a statement or transaction begun now is queued: an API request's, urgent background work's, or plain background work's. */
function priority(): { interactive?: true; urgent?: true } {
  if (interactiveContext.getStore()) return { interactive: true };
  return urgentContext.getStore() ? { urgent: true } : {};
}

/**
 * Runs `fn` as work someone waits for (an API request): its statements go before background jobs'
 * (indexing, re-cluster, expertise) in the PGlite thread's queue, and its reads may run inside a
 * background transaction that holds the connection, between that transaction's statements, instead of
 * waiting for its commit (they see its writes so far, as its own statements do). Elsewhere it just runs `fn`.
 */
export function runInteractive<T>(fn: () => T): T {
  return interactiveContext.run({ committedOnly: false }, fn);
}

/**
 * Runs `fn` as background work even inside an API request (a reload no request waits for): its
 * statements queue behind requests' and never run inside another's open transaction.
 */
export function runInBackground<T>(fn: () => T): T {
  return interactiveContext.exit(fn);
}

/**
 * Runs `fn`'s reads on committed data only (never inside another's open transaction): for what keeps
 * state built from the rows it reads (the search read model's catch-up, a snapshot), which must not
 * keep rows a transaction might still roll back. Keeps an API request's priority.
 */
export function readCommitted<T>(fn: () => T): T {
  const store = interactiveContext.getStore();
  return store ? interactiveContext.run({ committedOnly: true }, fn) : fn();
}

export interface PgliteThread {
  query<R>(sql: string, params: readonly unknown[]): Promise<QueryResult<R>>;
  copyFrom(table: string, columns: readonly string[], rows: Uint8Array): Promise<void>;
  exec(sql: string): Promise<void>;
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A database error as the thread reported it: its message, and its fields (`code`, `detail` ...) on the error. */
function toError(error: { message: string; name: string; fields: Record<string, unknown> }): Error {
  return Object.assign(new Error(error.message), error.fields, { name: error.name });
}

export async function startPgliteThread(dir: string, options: { logSlowMs?: number; sharedBuffersMb?: number } = {}): Promise<PgliteThread> {
  // The thread writes its WebAssembly heap's size here after each statement (read by `threadMemory`).
  const heapCell = new Float64Array(new SharedArrayBuffer(8));
  const worker: Worker = spawnModuleWorker(workerUrl, { workerData: { dir, logSlowMs: options.logSlowMs ?? 0, heapCell, sharedBuffersMb: options.sharedBuffersMb } });
  reportWasmBytes(worker, () => heapCell[0] ?? 0);
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let nextTx = 1;
  let dead: Error | null = null;

  const fail = (err: Error): void => {
    dead ??= err;
    for (const p of pending.values()) p.reject(dead);
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: PgliteReply) => {
      if (m.id === 0 && 'ready' in m) return m.ready ? resolve() : reject(new Error(`PGlite did not open ${dir}: ${m.error}`));
      const p = pending.get(m.id);
      if (!p || !('ok' in m)) return;
      pending.delete(m.id);
      p.resolve(m);
    });
    worker.on('error', (err) => {
      fail(err);
      reject(err);
    });
    worker.on('exit', (code) => {
      const err = new Error(`the PGlite thread exited (code ${code})`);
      fail(err);
      reject(err);
    });
  });
  await ready;

  const post = (body: Body<PgliteRequest>): void => worker.postMessage({ ...body, id: -1 });
  const ask = (body: Body<PgliteRequest>): Promise<Extract<PgliteReply, { ok: boolean }>> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...body, id });
    });
  };
  /** A COPY's rows go to the thread as a copy of their bytes (the caller keeps its buffer). */
  const copy = (table: string, columns: readonly string[], rows: Uint8Array, tx?: number) =>
    ask({ op: 'query', sql: copyFromSql(table, columns), params: [], blob: rows, ...(tx === undefined ? {} : { tx }) });
  const result = <R>(reply: Extract<PgliteReply, { ok: boolean }>): QueryResult<R> => {
    if (!reply.ok) throw toError(reply.error);
    return { rows: (reply.rows ?? []) as R[], rowCount: reply.affectedRows ?? 0 };
  };

  return {
    query: async <R>(sql: string, params: readonly unknown[]) => {
      const store = interactiveContext.getStore();
      return result<R>(await ask({ op: 'query', sql, params: [...params], ...priority(), ...(store && !store.committedOnly ? { shareTx: true } : {}) }));
    },
    copyFrom: async (table, columns, rows) => {
      result(await copy(table, columns, rows));
    },
    exec: async (sql) => {
      result(await ask({ op: 'exec', sql }));
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const tx = nextTx++;
      const settled = ask({ op: 'begin', tx, ...priority() });
      let value: T;
      try {
        value = await fn({
          query: async <R>(sql: string, params: readonly unknown[] = []) => result<R>(await ask({ op: 'query', sql, params: [...params], tx })),
          copyFrom: async (table, columns, rows) => {
            result(await copy(table, columns, rows, tx));
          },
        });
      } catch (err) {
        post({ op: 'rollback', tx });
        await settled.catch(() => undefined);
        throw err;
      }
      post({ op: 'commit', tx });
      result(await settled);
      return value;
    },
    async close() {
      if (!dead) result(await ask({ op: 'close' }));
      await worker.terminate();
    },
  };
}
