import type { EmbedOptions, EmbeddingProvider } from './types.js';

interface Waiting {
  texts: string[];
  resolve: (vectors: number[][]) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
}

/**
 * Gathers concurrent `embed` calls into shared batches. Index jobs embed one item each, several at a
 * time; a model serves a batch of 16 texts much faster than 16 batches of one (the offline pool sorts
 * and pads per batch, a hosted API pays per request). A call waits at most `maxWaitMs` for company.
 */
export function createCoalescingEmbedder(provider: EmbeddingProvider, options: { maxBatch?: number; maxWaitMs?: number } = {}): EmbeddingProvider {
  const maxBatch = options.maxBatch ?? 32;
  const maxWaitMs = options.maxWaitMs ?? 8;
  let queue: Waiting[] = [];
  let queued = 0;
  let timer: NodeJS.Timeout | null = null;

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = queue.filter((w) => !w.signal?.aborted);
    for (const w of queue) if (w.signal?.aborted) w.reject(w.signal.reason);
    queue = [];
    queued = 0;
    if (batch.length === 0) return;
    provider.embed(batch.flatMap((w) => w.texts)).then(
      (vectors) => {
        let at = 0;
        for (const w of batch) {
          w.resolve(vectors.slice(at, at + w.texts.length));
          at += w.texts.length;
        }
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    );
  };

  return {
    model: provider.model,
    dimensions: provider.dimensions,
    embed(texts: string[], { signal }: EmbedOptions = {}) {
      if (texts.length === 0) return Promise.resolve([]);
      // A large call is already a batch: send it as it is.
      if (texts.length >= maxBatch) return provider.embed(texts, { signal });
      return new Promise<number[][]>((resolve, reject) => {
        queue.push({ texts, resolve, reject, signal });
        queued += texts.length;
        if (queued >= maxBatch) flush();
        else timer ??= setTimeout(flush, maxWaitMs);
      });
    },
    async close() {
      flush();
      await provider.close();
    },
  };
}
