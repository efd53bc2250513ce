import type { QueueObserver } from './types.js';

/**
 * The observers of one queue as a single observer: each event goes to every observer in order, and an
 * observer that throws is skipped for that event (logging and metrics never fail a job).
 */
export function createObservers(initial?: QueueObserver): { observer: Required<QueueObserver>; add(observer: QueueObserver): () => void } {
  const list: QueueObserver[] = initial ? [initial] : [];
  const each = (call: (o: QueueObserver) => void) => {
    for (const o of [...list]) {
      try {
        call(o);
      } catch {
        // An observer's fault is its own.
      }
    }
  };
  return {
    observer: {
      onJob: (e) => each((o) => o.onJob?.(e)),
      onDepth: (d) => each((o) => o.onDepth?.(d)),
      onError: (e) => each((o) => o.onError?.(e)),
    },
    add(observer) {
      list.push(observer);
      return () => {
        const i = list.indexOf(observer);
        if (i >= 0) list.splice(i, 1);
      };
    },
  };
}
