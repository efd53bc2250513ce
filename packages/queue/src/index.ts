export * from './catalog.js';
export * from './types.js';
export { createMemoryQueue } from './memory.js';

import { createMemoryQueue } from './memory.js';
import type { JobQueue, QueueObserver } from './types.js';

/**
 * REDIS_URL set: BullMQ; unset: the in-process queue. BullMQ (and its Redis client) is loaded only for a
 * queue on Redis (`@engram/queue/bullmq`): the embedded default never needs it.
 */
export async function openQueue(redisUrl: string | undefined, options: { prefix?: string; observer?: QueueObserver; lockDurationMs?: number } = {}): Promise<JobQueue> {
  return redisUrl ? (await import('./bullmq.js')).createBullQueue(redisUrl, options) : createMemoryQueue(options.observer);
}
