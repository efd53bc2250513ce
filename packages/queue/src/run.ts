import type { JobName, JobSpec } from './catalog.js';
import { jobCatalog } from './catalog.js';
import type { JobContext, JobHandler, QueueObserver } from './types.js';
import { PermanentJobError } from './types.js';

/**
 * The one wrapper every job runs through, on both backends: validates the payload again when the job
 * is taken (a payload that fails is permanent), applies the deadline, times it, and reports the outcome.
 */
export async function runJob<N extends JobName>(
  name: N,
  raw: unknown,
  handler: JobHandler<N>,
  ctx: Omit<JobContext, 'signal'> & { maxAttempts?: number },
  observer?: QueueObserver,
): Promise<void> {
  const spec: JobSpec = jobCatalog[name];
  const parsed = spec.payload.safeParse(raw);
  const started = performance.now();
  const report = (outcome: 'completed' | 'retry' | 'failed', error?: string) =>
    observer?.onJob?.({ name, jobId: ctx.jobId, attempt: ctx.attempt, ms: performance.now() - started, outcome, error });
  if (!parsed.success) {
    const err = new PermanentJobError(`invalid ${name} payload: ${parsed.error.message}`);
    report('failed', err.message);
    throw err;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`${name} exceeded ${spec.timeoutMs} ms`)), spec.timeoutMs);
  timer.unref?.();
  try {
    await Promise.race([
      handler(parsed.data as never, { jobId: ctx.jobId, attempt: ctx.attempt, signal: controller.signal }),
      new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })),
    ]);
    report('completed');
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const last = err instanceof PermanentJobError || ctx.attempt >= (ctx.maxAttempts ?? spec.attempts);
    report(last ? 'failed' : 'retry', message);
    throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
