// Worker threads, each holding its own copy of the offline model (~110 MB). Batches queue FIFO and go
// to whichever worker is idle. The pool keeps `min` workers and grows to `max` while batches wait (an
// import); a worker beyond `min` idle for `idleMs` is stopped, so a server at rest, which embeds only
// queries, holds one model. Idle workers are unref'd so they never keep the process alive; a busy one
// is ref'd so an awaited batch is not lost to an early exit.
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '@engram/stores';
import type { EmbedRequest, WorkerMessage } from './offlineWorker.js';

export interface BatchResult {
  vectors: Float32Array;
  dimensions: number;
}

interface Batch {
  texts: string[];
  resolve: (result: BatchResult) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  current: { id: number; batch: Batch } | null;
  /** When it last finished a batch (or started). */
  idleSince: number;
  /** Stopped for idleness (and already out of `workers`): its exit is not a failure. */
  stopping: boolean;
}

export interface WorkerPoolOptions {
  /** Workers kept at all times (default 1). */
  min?: number;
  /** Workers at most, started while batches wait. */
  max: number;
  /** A worker beyond `min` idle this long is stopped (default 30 s). */
  idleMs?: number;
}

export interface WorkerPool {
  readonly dimensions: number;
  /** Workers running now (started ones included). */
  size(): number;
  run(texts: string[]): { promise: Promise<BatchResult>; cancel: () => boolean };
  close(): Promise<void>;
}

const workerUrl = new URL('./offlineWorker.ts', import.meta.url);

function startWorker(): Promise<{ worker: Worker; dimensions: number }> {
  return new Promise((resolve, reject) => {
    const worker = spawnModuleWorker(workerUrl);
    const onMessage = (message: WorkerMessage) => {
      if (message.type === 'ready') {
        cleanup();
        resolve({ worker, dimensions: message.dimensions });
      } else if (message.type === 'loadFailed') {
        cleanup();
        void worker.terminate();
        reject(new Error(`offline embedding model failed to load: ${message.message}`));
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`offline embedding worker exited with code ${code} before it was ready`));
    };
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

export async function startWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  const max = options.max;
  const min = Math.min(options.min ?? 1, max);
  const idleMs = options.idleMs ?? 30_000;
  if (!Number.isInteger(max) || max < 1 || !Number.isInteger(min) || min < 1) throw new Error(`worker pool needs 1 <= min <= max, got min ${min}, max ${max}`);
  const started = await Promise.allSettled(Array.from({ length: min }, () => startWorker()));
  const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.worker.terminate() : undefined)));
    throw failure.reason as Error;
  }
  const ready = started.map((s) => (s as PromiseFulfilledResult<{ worker: Worker; dimensions: number }>).value);
  const dimensions = ready[0]?.dimensions ?? 0;
  let workers: PoolWorker[] = [];
  const queue: Batch[] = [];
  let nextId = 1;
  let closed = false;
  let starting = 0;

  const dispatch = () => {
    for (const slot of workers) {
      if (slot.current) continue;
      const batch = queue.shift();
      if (!batch) return;
      const id = nextId++;
      slot.current = { id, batch };
      slot.worker.ref();
      slot.worker.postMessage({ id, texts: batch.texts } satisfies EmbedRequest);
    }
    // Every worker busy and batches waiting: one more model, up to max. A worker that fails to start
    // costs nothing but itself: the running ones keep the queue.
    if (queue.length > 0 && workers.length + starting < max && !closed) {
      starting++;
      startWorker().then(
        ({ worker }) => {
          starting--;
          if (closed) return void worker.terminate();
          attach(worker);
          dispatch();
        },
        () => {
          starting--;
        },
      );
    }
  };

  const finish = (slot: PoolWorker) => {
    slot.current = null;
    slot.idleSince = performance.now();
    slot.worker.unref();
    dispatch();
  };

  const retire = (slot: PoolWorker, error: Error) => {
    workers = workers.filter((w) => w !== slot);
    slot.current?.batch.reject(error);
    slot.current = null;
    if (workers.length === 0 && starting === 0) for (const batch of queue.splice(0)) batch.reject(error);
    else dispatch();
  };

  function attach(worker: Worker): void {
    const slot: PoolWorker = { worker, current: null, idleSince: performance.now(), stopping: false };
    workers.push(slot);
    slot.worker.on('message', (message: WorkerMessage) => {
      const current = slot.current;
      if (!current || !('id' in message) || message.id !== current.id) return;
      if (message.type === 'embedded') current.batch.resolve({ vectors: message.vectors, dimensions: message.dimensions });
      else if (message.type === 'failed') current.batch.reject(new Error(`offline embedding failed: ${message.message}`));
      finish(slot);
    });
    slot.worker.on('error', (error) => retire(slot, error));
    slot.worker.on('exit', (code) => {
      if (!closed && !slot.stopping) retire(slot, new Error(`offline embedding worker exited with code ${code}`));
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    slot.worker.unref();
  }
  for (const { worker } of ready) attach(worker);

  // Stops one idle worker beyond `min` at a time; unref'd, so it never keeps the process alive.
  const reaper = setInterval(
    () => {
      if (queue.length > 0 || workers.length <= min) return;
      const now = performance.now();
      const idle = workers.find((w) => !w.current && now - w.idleSince >= idleMs);
      if (!idle) return;
      idle.stopping = true;
      workers = workers.filter((w) => w !== idle);
      void idle.worker.terminate();
    },
    Math.max(10, Math.min(idleMs / 2, 5_000)),
  );
  reaper.unref();

  return {
    dimensions,
    size: () => workers.length + starting,
    run(texts) {
      if (closed || workers.length === 0) {
        const reason = closed ? 'offline embedder is closed' : 'offline embedder has no live workers';
        return { promise: Promise.reject(new Error(reason)), cancel: () => false };
      }
      let resolve!: Batch['resolve'];
      let reject!: Batch['reject'];
      const promise = new Promise<BatchResult>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const batch: Batch = { texts, resolve, reject };
      queue.push(batch);
      dispatch();
      const cancel = () => {
        const at = queue.indexOf(batch);
        if (at >= 0) queue.splice(at, 1);
        return at >= 0;
      };
      return { promise, cancel };
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(reaper);
      const error = new Error('offline embedder is closed');
      for (const batch of queue.splice(0)) batch.reject(error);
      for (const slot of workers) slot.current?.batch.reject(error);
      await Promise.all(workers.map((slot) => slot.worker.terminate()));
      workers = [];
    },
  };
}
