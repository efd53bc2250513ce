export * from './catalog.js';
export * from './types.js';
export { createMemoryQueue } from './memory.js';
export { createBullQueue, obliterateQueues } from './bullmq.js';

import { createBullQueue } from './bullmq.js';
import { createMemoryQueue } from './memory.js';
import type { JobQueue, QueueObserver } from './types.js';

/** REDIS_URL set: BullMQ; unset: the in-process queue. */
export function openQueue(redisUrl: string | undefined, options: { prefix?: string; observer?: QueueObserver; lockDurationMs?: number } = {}): JobQueue {
  return redisUrl ? createBullQueue(redisUrl, options) : createMemoryQueue(options.observer);
}
