import type { JobName, JobSpec } from './catalog.js';
import { jobCatalog } from './catalog.js';
import type { JobContext, JobEvent, JobHandler, QueueObserver } from './types.js';
import { JobStoppedError, PermanentJobError } from './types.js';

/**
 * The one wrapper every job runs through, on both backends: validates the payload again when the job
 * is taken (a payload that fails is permanent), applies the deadline, times it, and reports the outcome.
 */
export async function runJob<N extends JobName>(
  name: N,
  raw: unknown,
  handler: JobHandler<N>,
  ctx: Omit<JobContext, 'signal'> & { maxAttempts?: number; stopping?: AbortSignal },
  observer?: QueueObserver,
): Promise<void> {
  const spec: JobSpec = jobCatalog[name];
  const parsed = spec.payload.safeParse(raw);
  const started = performance.now();
  const report = (outcome: JobEvent['outcome'], error?: string) =>
    observer?.onJob?.({ name, jobId: ctx.jobId, attempt: ctx.attempt, ms: performance.now() - started, outcome, error });
  if (!parsed.success) {
    const err = new PermanentJobError(`invalid ${name} payload: ${parsed.error.message}`);
    report('failed', err.message);
    throw err;
  }
  // The handler's signal aborts at the deadline or when the queue closes. Past the deadline the job fails
  // at once (a stuck handler is left behind); a closing queue waits for the handler to stop at its next
  // slice (a job that never looks at its signal finishes), within the queue's own close deadline.
  const controller = new AbortController();
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort(new Error(`${name} exceeded ${spec.timeoutMs} ms`));
    controller.abort(deadline.signal.reason);
  }, spec.timeoutMs);
  timer.unref?.();
  const stop = () => controller.abort(ctx.stopping?.reason);
  if (ctx.stopping?.aborted) stop();
  else ctx.stopping?.addEventListener('abort', stop, { once: true });
  try {
    await Promise.race([
      handler(parsed.data as never, { jobId: ctx.jobId, attempt: ctx.attempt, signal: controller.signal }),
      new Promise<never>((_, reject) => deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason), { once: true })),
    ]);
    report('completed');
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof JobStoppedError) {
      report('stopped', message);
      throw err;
    }
    const last = err instanceof PermanentJobError || ctx.attempt >= (ctx.maxAttempts ?? spec.attempts);
    report(last ? 'failed' : 'retry', message);
    throw err;
  } finally {
    clearTimeout(timer);
    ctx.stopping?.removeEventListener('abort', stop);
    deadline.abort();
    controller.abort();
  }
}
