import type { JobName, JobPayload } from './catalog.js';

/** A failure that retrying cannot fix (bad payload, missing row): the job fails at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/**
 * The reason a running job's signal aborts when its queue closes. A job that stops for it is not a
 * failure: the memory queue drops it (start-up recovery and the schedules ask again), BullMQ puts it
 * back to run again without spending an attempt.
 */
export class JobStoppedError extends Error {
  override name = 'JobStoppedError';
}

export interface JobContext {
  jobId: string;
  /** 1 on the first try. */
  attempt: number;
  /**
   * Aborts when the job's deadline passes or its queue closes (reason: `JobStoppedError`). Long jobs
   * check it between slices and stop there; the rest finish what they started.
   */
  signal: AbortSignal;
}

export type JobHandler<N extends JobName> = (payload: JobPayload<N>, ctx: JobContext) => Promise<void>;
export type JobHandlers = { [N in JobName]?: JobHandler<N> };

export interface EnqueueOptions {
  /** Jobs with the same id while one is waiting or running collapse into one. */
  jobId?: string;
  delayMs?: number;
}

export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export interface JobEvent {
  name: JobName;
  jobId: string;
  attempt: number;
  ms: number;
  /** `stopped`: the queue closed while it ran and it stopped early (it runs again later, see `JobStoppedError`). */
  outcome: 'completed' | 'retry' | 'failed' | 'stopped';
  error?: string;
}

export interface JobQueue {
  readonly kind: 'bullmq' | 'memory';
  enqueue<N extends JobName>(name: N, payload: JobPayload<N>, options?: EnqueueOptions): Promise<void>;
  enqueueMany<N extends JobName>(name: N, jobs: { payload: JobPayload<N>; jobId?: string }[]): Promise<void>;
  /** Starts workers for the given handlers in this process. */
  process(handlers: JobHandlers): void;
  /** Repeats a job every `everyMs` (BullMQ job scheduler; a timer in memory). Same key replaces. */
  schedule<N extends JobName>(key: string, name: N, payload: JobPayload<N>, everyMs: number): Promise<void>;
  unschedule(key: string): Promise<void>;
  depths(): Promise<Record<JobName, QueueDepth>>;
  /** Resolves when no job is waiting, delayed or running (in-process queue; polls BullMQ). */
  idle(): Promise<void>;
  /** Adds an observer (metrics, tests) beside the one the queue was opened with; returns its removal. */
  observe(observer: QueueObserver): () => void;
  /** Stops taking jobs, waits for running ones (up to the deadline), then disconnects. */
  close(deadlineMs?: number): Promise<void>;
}

/** A queue-level fault outside any one handler run: a lost Redis connection, a stalled or lock-lost job. */
export interface QueueErrorEvent {
  /** The job kind whose worker reported it (absent for a queue-wide fault). */
  name?: JobName;
  jobId?: string;
  kind: 'queue' | 'worker' | 'stalled';
  error: string;
}

/**
 * Hooks for logs and metrics; every member is optional and an observer that throws never breaks a job.
 * - `onJob`: once per handler run, with its outcome and duration (both backends);
 * - `onDepth`: each time `depths()` is read, with the counts it returns (poll it to export gauges);
 * - `onError`: worker and stall faults that no handler run saw (BullMQ; never on the in-process queue).
 * Pass one to `openQueue`, or attach more later with `JobQueue.observe`.
 */
export interface QueueObserver {
  onJob?(event: JobEvent): void;
  onDepth?(depths: Record<JobName, QueueDepth>): void;
  onError?(event: QueueErrorEvent): void;
}
