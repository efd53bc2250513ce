/**
 * Admits at most `limit` searches at a time, first come first served. On the embedded default every
 * search's first stage is CPU on the one event loop, and with sixteen in flight one turn of the loop ran
 * a step of each of them before anything else got a turn: the indexer's next statement, a health check,
 * the next HTTP request. A search waiting here costs nothing, and a finished search hands its place on
 * through `setImmediate`, so the loop turns between two searches. `limit` 0 admits every search at once.
 */
export class SearchGate {
  private running = 0;
  private readonly waiting: { admit: () => void; signal?: AbortSignal; onAbort?: () => void }[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 0) throw new Error(`search concurrency must be a whole number >= 0, got ${limit}`);
  }

  /** Searches admitted and not yet done (with `limit` 0, every search under way). */
  get active(): number {
    return this.running;
  }

  /** Searches waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `fn` once admitted. Rejects with the signal's reason, and leaves the queue, when `signal` aborts first. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.limit === 0) {
      this.running++;
      try {
        return await fn();
      } finally {
        this.running--;
      }
    }
    signal?.throwIfAborted();
    if (this.running < this.limit) this.running++;
    else await this.wait(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private wait(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry: (typeof this.waiting)[number] = { admit: resolve, signal };
      if (signal) {
        entry.onAbort = () => {
          const at = this.waiting.indexOf(entry);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.running--;
      return;
    }
    // The place passes to the next search, after the event loop has turned once.
    if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
    setImmediate(next.admit);
  }
}
