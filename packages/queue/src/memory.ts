import PQueue from 'p-queue';
import type { JobName, JobPayload } from './catalog.js';
import { backoffDelay, jobCatalog, jobNames } from './catalog.js';
import { createObservers } from './observers.js';
import { runJob } from './run.js';
import type { EnqueueOptions, JobHandlers, JobQueue, QueueDepth, QueueObserver } from './types.js';
import { JobStoppedError, PermanentJobError } from './types.js';

interface Pending {
  name: JobName;
  jobId: string;
  payload: unknown;
  attempt: number;
}

/**
 * In-process queue for the embedded default: the same job catalog, handlers, retry policy and
 * concurrency as BullMQ, without Redis. Jobs live in memory; durability comes from the database
 * (staged events are re-enqueued at start-up until indexed, cursors resume where they stopped).
 */
export function createMemoryQueue(initialObserver?: QueueObserver): JobQueue {
  const observers = createObservers(initialObserver);
  const observer = observers.observer;
  const lanes = new Map<JobName, PQueue>(jobNames.map((n) => [n, new PQueue({ concurrency: jobCatalog[n].concurrency, autoStart: false })]));
  const live = new Set<string>(); // waiting, delayed or running job ids
  // Completed job ids are remembered for an hour (up to 10,000 of each kind), as BullMQ keeps completed
  // jobs per queue: a job id enqueued again in that time is a duplicate. (One memory for every kind let
  // 10,000 index jobs push out a re-cluster's id, which an import then asked for again.)
  const completed = new Map<JobName, Map<string, number>>(jobNames.map((n) => [n, new Map()]));
  const rememberCompleted = (name: JobName, jobId: string) => {
    const ids = completed.get(name)!;
    ids.set(jobId, Date.now());
    if (ids.size > 10_000) ids.delete(ids.keys().next().value!);
  };
  const recentlyCompleted = (name: JobName, jobId: string) => {
    const ids = completed.get(name)!;
    const at = ids.get(jobId);
    if (at === undefined) return false;
    if (Date.now() - at < 3_600_000) return true;
    ids.delete(jobId);
    return false;
  };
  const timers = new Set<NodeJS.Timeout>();
  const schedules = new Map<string, NodeJS.Timeout>();
  const counts = new Map<JobName, QueueDepth>(jobNames.map((n) => [n, { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 }]));
  let handlers: JobHandlers = {};
  let closing = false;
  // Aborted by `close`: running jobs see their signal abort and stop at their next slice.
  const stopping = new AbortController();
  let seq = 0;

  const depth = (name: JobName): QueueDepth => counts.get(name)!;

  function submit(job: Pending, delayMs = 0): void {
    if (closing) return;
    if (delayMs > 0) {
      depth(job.name).delayed++;
      const t = setTimeout(() => {
        timers.delete(t);
        depth(job.name).delayed--;
        submit(job);
      }, delayMs);
      timers.add(t);
      return;
    }
    depth(job.name).waiting++;
    void lanes.get(job.name)!.add(async () => {
      depth(job.name).waiting--;
      const handler = handlers[job.name];
      if (!handler) throw new Error(`no handler registered for ${job.name}`);
      depth(job.name).active++;
      try {
        await runJob(job.name, job.payload, handler as never, { jobId: job.jobId, attempt: job.attempt, stopping: stopping.signal }, observer);
        depth(job.name).completed++;
        live.delete(job.jobId);
        rememberCompleted(job.name, job.jobId);
      } catch (err) {
        const spec = jobCatalog[job.name];
        if (err instanceof JobStoppedError) {
          // Stopped by `close`: dropped, as every waiting job is (start-up recovery and the schedules ask again).
          live.delete(job.jobId);
        } else if (err instanceof PermanentJobError || job.attempt >= spec.attempts || closing) {
          depth(job.name).failed++;
          live.delete(job.jobId);
        } else {
          submit({ ...job, attempt: job.attempt + 1 }, backoffDelay(spec, job.attempt));
        }
      } finally {
        depth(job.name).active--;
      }
    });
  }

  async function enqueue<N extends JobName>(name: N, payload: JobPayload<N>, options: EnqueueOptions = {}): Promise<void> {
    const jobId = options.jobId ?? `${name}:${++seq}`;
    if (live.has(jobId) || recentlyCompleted(name, jobId)) return;
    live.add(jobId);
    submit({ name, jobId, payload, attempt: 1 }, options.delayMs);
  }

  const queue: JobQueue = {
    kind: 'memory',
    enqueue,
    async enqueueMany(name, jobs) {
      for (const j of jobs) await enqueue(name, j.payload, { jobId: j.jobId });
    },
    process(h) {
      handlers = { ...handlers, ...h };
      for (const lane of lanes.values()) lane.start();
    },
    async schedule(key, name, payload, everyMs) {
      await queue.unschedule(key);
      const t = setInterval(() => void enqueue(name, payload, { jobId: `schedule:${key}:${Date.now()}` }), everyMs);
      t.unref();
      schedules.set(key, t);
    },
    async unschedule(key) {
      const t = schedules.get(key);
      if (t) clearInterval(t);
      schedules.delete(key);
    },
    async depths() {
      const out = Object.fromEntries(jobNames.map((n) => [n, { ...depth(n) }])) as Record<JobName, QueueDepth>;
      observer.onDepth(out);
      return out;
    },
    observe: (o) => observers.add(o),
    async idle() {
      for (;;) {
        const busy = jobNames.some((n) => depth(n).waiting + depth(n).active + depth(n).delayed > 0);
        if (!busy) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close(deadlineMs = 30_000) {
      closing = true;
      stopping.abort(new JobStoppedError('the queue is closing'));
      for (const t of schedules.values()) clearInterval(t);
      for (const t of timers) clearTimeout(t);
      for (const lane of lanes.values()) lane.clear();
      const drained = Promise.all([...lanes.values()].map((l) => l.onIdle()));
      await Promise.race([drained, new Promise((r) => setTimeout(r, deadlineMs).unref())]);
    },
  };
  return queue;
}
