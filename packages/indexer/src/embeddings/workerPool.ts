// A fixed set of worker threads, each holding its own copy of the offline model. Batches queue
// FIFO and go to whichever worker is idle. Idle workers are unref'd so they never keep the
// process alive; a busy one is ref'd so an awaited batch is not lost to an early exit.
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
}

export interface WorkerPool {
  readonly dimensions: number;
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

export async function startWorkerPool(threads: number): Promise<WorkerPool> {
  const started = await Promise.allSettled(Array.from({ length: threads }, () => startWorker()));
  const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.worker.terminate() : undefined)));
    throw failure.reason as Error;
  }
  const ready = started.map((s) => (s as PromiseFulfilledResult<{ worker: Worker; dimensions: number }>).value);
  const dimensions = ready[0]?.dimensions ?? 0;
  let workers: PoolWorker[] = ready.map(({ worker }) => ({ worker, current: null }));
  const queue: Batch[] = [];
  let nextId = 1;
  let closed = false;

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
  };

  const finish = (slot: PoolWorker) => {
    slot.current = null;
    slot.worker.unref();
    dispatch();
  };

  const retire = (slot: PoolWorker, error: Error) => {
    workers = workers.filter((w) => w !== slot);
    slot.current?.batch.reject(error);
    slot.current = null;
    if (workers.length === 0) for (const batch of queue.splice(0)) batch.reject(error);
    else dispatch();
  };

  for (const slot of workers) {
    slot.worker.on('message', (message: WorkerMessage) => {
      const current = slot.current;
      if (!current || !('id' in message) || message.id !== current.id) return;
      if (message.type === 'embedded') current.batch.resolve({ vectors: message.vectors, dimensions: message.dimensions });
      else if (message.type === 'failed') current.batch.reject(new Error(`offline embedding failed: ${message.message}`));
      finish(slot);
    });
    slot.worker.on('error', (error) => retire(slot, error));
    slot.worker.on('exit', (code) => {
      if (!closed) retire(slot, new Error(`offline embedding worker exited with code ${code}`));
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    slot.worker.unref();
  }

  return {
    dimensions,
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
      const error = new Error('offline embedder is closed');
      for (const batch of queue.splice(0)) batch.reject(error);
      for (const slot of workers) slot.current?.batch.reject(error);
      await Promise.all(workers.map((slot) => slot.worker.terminate()));
      workers = [];
    },
  };
}
