import type { z } from 'zod';
import { ExpertisePayload, IndexItemPayload, ReclusterPayload, SyncPagePayload } from '@engram/contracts';

export interface JobSpec<S extends z.ZodType = z.ZodType> {
  payload: S;
  /** Total tries including the first. */
  attempts: number;
  backoff: { type: 'exponential' | 'fixed'; delayMs: number };
  /** Handler deadline; a job running longer fails with a transient error and is retried. */
  timeoutMs: number;
  /** Jobs of this kind running at once, per worker process. */
  concurrency: number;
}

/** Every job Engram runs, declared once: both queue backends read this. */
export const jobCatalog = {
  /** Fetch one page of a connection's stream, stage its events, enqueue indexing, checkpoint the cursor. */
  'sync.page': { payload: SyncPagePayload, attempts: 10, backoff: { type: 'exponential', delayMs: 2_000 }, timeoutMs: 15 * 60_000, concurrency: 2 },
  /**
   * Index one staged source event (entities, embedding, refs, edges, cluster, actors). The indexer gathers
   * the jobs running at once into batches (up to 128 events, three batches in flight: one reading or
   * embedding while another writes and the third places its items in clusters), so this concurrency is
   * what lets batches fill.
   */
  'index.event': { payload: IndexItemPayload, attempts: 6, backoff: { type: 'exponential', delayMs: 1_000 }, timeoutMs: 5 * 60_000, concurrency: 384 },
  /** Periodic re-cluster: merges close clusters, splits loose ones, refreshes topics and keywords. */
  'cluster.recluster': { payload: ReclusterPayload, attempts: 3, backoff: { type: 'exponential', delayMs: 5_000 }, timeoutMs: 30 * 60_000, concurrency: 1 },
  /** Recompute actors' expertise domains. */
  'actors.expertise': { payload: ExpertisePayload, attempts: 3, backoff: { type: 'exponential', delayMs: 5_000 }, timeoutMs: 10 * 60_000, concurrency: 1 },
} as const satisfies Record<string, JobSpec>;

export type JobCatalog = typeof jobCatalog;
export type JobName = keyof JobCatalog;
export type JobPayload<N extends JobName> = z.infer<JobCatalog[N]['payload']>;
export const jobNames = Object.keys(jobCatalog) as JobName[];

export function backoffDelay(spec: JobSpec, attempt: number): number {
  return spec.backoff.type === 'fixed' ? spec.backoff.delayMs : spec.backoff.delayMs * 2 ** Math.max(0, attempt - 1);
}
