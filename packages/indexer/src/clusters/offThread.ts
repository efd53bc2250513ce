/**
 * The main-thread side of the compute worker (computeWorker.ts): the re-cluster plan and the area
 * model's counting run there, so the event loop that answers HTTP stays free while they do. Pages of
 * input are posted as they are read (typed arrays transferred, not copied); `finish` asks for the
 * result. One worker per job, terminated after it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { backgroundNiceValue, spawnModuleWorker, type Db, type Queryable } from '@engram/stores';
import type { WorkerReply, WorkerRequest } from './computeWorker.js';

const workerUrl = new URL('./computeWorker.ts', import.meta.url);

/** Lets the event loop run what waits (an HTTP request, a timer) before the next slice of work. */
export const yieldToLoop = (): Promise<void> => nextTurn();

/**
 * The database with a turn of the event loop before every statement, in and out of transactions. On
 * PGlite a query runs on this thread and its promise settles in a microtask, so a chain of awaited
 * queries never lets a timer or a socket in: without this, a job's reads would run back to back for
 * as long as the job lasts. With it, the longest stretch is one statement.
 *
 * With a `signal`, every statement first checks it: once it is aborted (the job's deadline passed or
 * its process is stopping), the next statement throws its reason instead of running, so a long job
 * stops at a slice boundary and an open transaction rolls back.
 */
export function yieldingDb(db: Db, signal?: AbortSignal): Db {
  const yielding = (target: Queryable): Queryable['query'] =>
    async <R>(sql: string, params?: readonly unknown[]) => {
      await nextTurn();
      signal?.throwIfAborted();
      return target.query<R>(sql, params);
    };
  return { ...db, query: yielding(db), transaction: (fn) => db.transaction((tx) => fn({ query: yielding(tx) })) };
}

/** `work`, or the signal's reason as soon as it is aborted (the work's own outcome is then ignored: its caller cleans up). */
export function unlessAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

export interface ComputeThread {
  /** Sends work that needs no answer; the listed buffers move to the worker. */
  post(request: WorkerRequest, transfer?: ArrayBuffer[]): void;
  /** Sends a request and waits for its answer (or the worker's failure). */
  ask<K extends WorkerReply['kind']>(request: WorkerRequest, kind: K): Promise<Extract<WorkerReply, { kind: K }>>;
  close(): Promise<void>;
}

export function startComputeThread(): ComputeThread {
  const worker = spawnModuleWorker(workerUrl, { workerData: { nice: backgroundNiceValue() } });
  let failure: Error | null = null;
  let waiting: { kind: string; resolve: (reply: WorkerReply) => void; reject: (error: Error) => void } | null = null;
  const fail = (error: Error) => {
    failure ??= error;
    waiting?.reject(failure);
    waiting = null;
  };
  worker.on('message', (reply: WorkerReply) => {
    if (reply.kind === 'failed') return fail(new Error(`compute worker: ${reply.message}`));
    const current = waiting;
    if (current?.kind !== reply.kind) return;
    waiting = null;
    current.resolve(reply);
  });
  worker.on('error', (error) => fail(error));
  worker.on('exit', (code) => fail(new Error(`compute worker exited with code ${code}`)));
  let closed = false;
  return {
    post(request, transfer = []) {
      if (failure) throw failure;
      worker.postMessage(request, transfer);
    },
    ask(request, kind) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        waiting = { kind, resolve: resolve as (reply: WorkerReply) => void, reject };
        worker.postMessage(request);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      failure ??= new Error('compute worker closed');
      await worker.terminate();
    },
  };
}

/** Where paged CPU work goes: pages in, one result out. */
export interface PageSink<P, R> {
  addPage(page: P, rows: number): void;
  finish(): Promise<R>;
  close(): Promise<void>;
}

/**
 * `worker` and `inline` say where the work runs; `auto` (the default) keeps small inputs inline (a worker
 * costs a thread and a module load) and moves to a worker once more than `inlineMaxRows` rows came.
 * Pages wait in a list until the choice is made, so either way every page reaches the same code.
 */
export function pageSink<P, R>(
  mode: 'worker' | 'inline' | 'auto' | undefined,
  inlineMaxRows: number,
  inline: () => { addPage(page: P): void; finish(): R },
  remote: () => PageSink<P, R>,
): PageSink<P, R> {
  const waiting: P[] = [];
  let rows = 0;
  let target: PageSink<P, R> | null = mode === 'worker' ? remote() : null;
  const local = () => {
    const planner = inline();
    for (const page of waiting.splice(0)) planner.addPage(page);
    return planner.finish();
  };
  return {
    addPage(page, n) {
      rows += n;
      if (target) return target.addPage(page, n);
      waiting.push(page);
      if (mode !== 'inline' && rows > inlineMaxRows) {
        target = remote();
        for (const p of waiting.splice(0)) target.addPage(p, 0);
      }
    },
    finish: async () => (target ? target.finish() : local()),
    close: async () => target?.close(),
  };
}
