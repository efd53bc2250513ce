// The default, fully offline provider: Universal Sentence Encoder lite (512 dims) on a pool of
// worker threads. The model pads each batch to its longest text, so texts are sorted by length
// and cut into small batches; the longest batches go first so both workers finish together.
import { availableParallelism } from 'node:os';
import type { EmbedOptions, EmbeddingProvider } from './types.js';
import { abortError, normalizeVector } from './vectors.js';
import { startWorkerPool } from './workerPool.js';

export interface OfflineEmbedderOptions {
  /** Worker threads at most, each holding its own model (~110 MB). Default min(2, CPUs). */
  threads?: number;
  /**
   * Threads kept when nothing waits (default 1): the others start when batches queue (an import) and stop
   * after `idleMs` (default 30 s) without work, so a server at rest holds one model.
   */
  minThreads?: number;
  idleMs?: number;
  /** Texts per model call. Default 8. */
  batchSize?: number;
  /**
   * Characters kept from each text. The model reads only its first 128 tokens (~300-550 chars of
   * PR text), so anything past that only costs tokenising time. Default 1000: measured to leave
   * every corpus vector unchanged (bench/results/embeddings.md). Embed longer content via chunkText.
   */
  maxChars?: number;
}

export const OFFLINE_MODEL = 'use-lite-512';
export const DEFAULT_OFFLINE_BATCH_SIZE = 8;
export const DEFAULT_OFFLINE_MAX_CHARS = 1000;

/** The model cannot embed an empty string on its own, so blank text becomes one space. */
export function prepareOfflineText(text: string, maxChars: number): string {
  const cut = text.length > maxChars ? text.slice(0, maxChars) : text;
  return cut.trim() === '' ? ' ' : cut;
}

export async function createOfflineEmbedder(options: OfflineEmbedderOptions = {}): Promise<EmbeddingProvider> {
  const threads = options.threads ?? Math.min(2, availableParallelism());
  const batchSize = options.batchSize ?? DEFAULT_OFFLINE_BATCH_SIZE;
  const maxChars = options.maxChars ?? DEFAULT_OFFLINE_MAX_CHARS;
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`threads must be a positive integer, got ${threads}`);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new Error(`maxChars must be a positive integer, got ${maxChars}`);

  const pool = await startWorkerPool({ max: threads, min: Math.min(options.minThreads ?? 1, threads), idleMs: options.idleMs });

  async function embed(texts: string[], { signal }: EmbedOptions = {}): Promise<number[][]> {
    if (signal?.aborted) throw abortError(signal);
    if (texts.length === 0) return [];
    const prepared = texts.map((text) => prepareOfflineText(text, maxChars));
    const order = prepared.map((_, i) => i).sort((a, b) => prepared[b]!.length - prepared[a]!.length);
    const runs: { indices: number[]; run: ReturnType<typeof pool.run> }[] = [];
    for (let start = 0; start < order.length; start += batchSize) {
      const indices = order.slice(start, start + batchSize);
      runs.push({ indices, run: pool.run(indices.map((i) => prepared[i]!)) });
    }
    const out = new Array<number[]>(texts.length);
    const settled = runs.map(async ({ indices, run }) => {
      const { vectors, dimensions } = await run.promise;
      indices.forEach((index, row) => {
        out[index] = normalizeVector(vectors.subarray(row * dimensions, (row + 1) * dimensions));
      });
    });
    return new Promise<number[][]>((resolve, reject) => {
      const onAbort = () => {
        runs.forEach(({ run }) => run.cancel());
        if (signal) reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      Promise.all(settled)
        .then(() => resolve(out), reject)
        .finally(() => signal?.removeEventListener('abort', onAbort));
    });
  }

  return {
    model: OFFLINE_MODEL,
    dimensions: pool.dimensions,
    embed,
    close: () => pool.close(),
  };
}
