import { DelayedError, Queue, UnrecoverableError, Worker, type ConnectionOptions } from 'bullmq';
import type { JobName, JobPayload } from './catalog.js';
import { jobCatalog, jobNames } from './catalog.js';
import { createObservers } from './observers.js';
import { runJob } from './run.js';
import type { EnqueueOptions, JobHandlers, JobQueue, QueueDepth, QueueObserver } from './types.js';
import { JobStoppedError, PermanentJobError } from './types.js';

/** BullMQ job ids may not contain ':' in some versions' custom ids; keep them opaque but stable. */
const safeId = (id: string): string => id.replace(/:/g, '_');

function connectionFromUrl(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : undefined,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

/** How long a worker's claim on a job lasts without renewal (BullMQ's default); renewed every half of it. */
export const DEFAULT_LOCK_DURATION_MS = 30_000;

/**
 * Durable queues on Redis: one BullMQ queue per job kind, retry policy from the catalog. A job whose
 * worker died (SIGKILL, lost host) is taken again once its lock expires: `lockDurationMs` bounds that
 * wait, and a job may be taken again this way as many times as it has attempts.
 */
export function createBullQueue(redisUrl: string, options: { prefix?: string; observer?: QueueObserver; lockDurationMs?: number } = {}): JobQueue {
  const connection = connectionFromUrl(redisUrl);
  const prefix = options.prefix ?? 'engram';
  const workers: Worker[] = [];
  // Aborted by `close`: running jobs see their signal abort and stop at their next slice.
  const stopping = new AbortController();
  const observers = createObservers(options.observer);
  const observer = observers.observer;
  const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
  const queues = new Map<JobName, Queue>(
    jobNames.map((n) => {
      const q = new Queue(n, { connection, prefix });
      q.on('error', (err) => observer.onError({ name: n, kind: 'queue', error: message(err) }));
      return [n, q];
    }),
  );

  const jobOptions = (name: JobName, o: EnqueueOptions = {}) => {
    const spec = jobCatalog[name];
    return {
      jobId: o.jobId ? safeId(o.jobId) : undefined,
      delay: o.delayMs,
      attempts: spec.attempts,
      backoff: { type: spec.backoff.type, delay: spec.backoff.delayMs },
      removeOnComplete: { age: 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    };
  };

  async function counts(): Promise<Record<JobName, QueueDepth>> {
    const out = {} as Record<JobName, QueueDepth>;
    for (const [name, q] of queues) {
      const c = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
      out[name] = { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0, completed: c.completed ?? 0 };
    }
    return out;
  }

  const queue: JobQueue = {
    kind: 'bullmq',
    async enqueue(name, payload, o) {
      await queues.get(name)!.add(name, payload, jobOptions(name, o));
    },
    async enqueueMany(name, jobs) {
      for (let i = 0; i < jobs.length; i += 500) {
        await queues.get(name)!.addBulk(jobs.slice(i, i + 500).map((j) => ({ name, data: j.payload, opts: jobOptions(name, { jobId: j.jobId }) })));
      }
    },
    process(handlers: JobHandlers) {
      for (const name of jobNames) {
        const handler = handlers[name];
        if (!handler) continue;
        const spec = jobCatalog[name];
        const lockDuration = Math.min(spec.timeoutMs, options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS);
        const worker = new Worker(
          name,
          async (job, token) => {
            try {
              await runJob(name, job.data, handler as never, { jobId: job.id ?? '', attempt: job.attemptsMade + 1, maxAttempts: spec.attempts, stopping: stopping.signal }, observer);
            } catch (err) {
              if (err instanceof PermanentJobError) throw new UnrecoverableError(err.message);
              // Stopped by `close`: back in the queue to run again at once (on another worker, or on this
              // one after its restart) without spending an attempt.
              if (err instanceof JobStoppedError) {
                await job.moveToDelayed(Date.now(), token);
                throw new DelayedError(err.message);
              }
              throw err;
            }
          },
          { connection, prefix, concurrency: spec.concurrency, lockDuration, stalledInterval: lockDuration, maxStalledCount: spec.attempts },
        );
        // Faults no handler run sees (a lost connection, a job whose lock was lost): reported, never thrown.
        worker.on('error', (err) => observer.onError({ name, kind: 'worker', error: message(err) }));
        worker.on('stalled', (jobId) => observer.onError({ name, jobId, kind: 'stalled', error: `job ${jobId} stalled: its lock expired and it will run again` }));
        workers.push(worker);
      }
    },
    async schedule(key, name, payload: JobPayload<typeof name>, everyMs) {
      await queues.get(name)!.upsertJobScheduler(key, { every: everyMs }, { name, data: payload });
    },
    async unschedule(key) {
      for (const q of queues.values()) await q.removeJobScheduler(key);
    },
    async depths() {
      const out = await counts();
      observer.onDepth(out);
      return out;
    },
    observe: (o) => observers.add(o),
    async idle() {
      for (;;) {
        const d = await counts();
        if (Object.values(d).every((x) => x.waiting + x.active + x.delayed === 0)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close(deadlineMs = 30_000) {
      stopping.abort(new JobStoppedError('the queue is closing'));
      const closing = Promise.all(workers.map((w) => w.close()));
      await Promise.race([closing, new Promise((r) => setTimeout(r, deadlineMs).unref())]);
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
  return queue;
}

/** Removes every Engram queue's data under a prefix (tests use a random prefix per run). */
export async function obliterateQueues(redisUrl: string, prefix: string): Promise<void> {
  const connection = connectionFromUrl(redisUrl);
  for (const name of jobNames) {
    const q = new Queue(name, { connection, prefix });
    await q.obliterate({ force: true });
    await q.close();
  }
}
