import { afterEach, describe, expect, it } from 'vitest';
import { createBullQueue, obliterateQueues } from '../src/bullmq.js';
import { createMemoryQueue, jobCatalog, JobStoppedError, PermanentJobError, type JobEvent, type JobQueue } from '../src/index.js';
import { randomSuffix, redisUrl } from '@engram/stores/testing';

interface Backend {
  name: string;
  open: (onJob: (e: JobEvent) => void) => { queue: JobQueue; cleanup: () => Promise<void> };
}

const backends: Backend[] = [{ name: 'memory', open: (onJob) => ({ queue: createMemoryQueue({ onJob }), cleanup: async () => undefined }) }];
const redis = redisUrl();
if (redis) {
  backends.push({
    name: 'bullmq',
    open: (onJob) => {
      const prefix = `engram-test-${randomSuffix()}`;
      return { queue: createBullQueue(redis, { prefix, observer: { onJob } }), cleanup: () => obliterateQueues(redis, prefix) };
    },
  });
}

const payload = (eventId: string) => ({ workspaceId: 'ws_test', eventId });

describe.each(backends)('queue contract: $name', ({ open }) => {
  let opened: { queue: JobQueue; cleanup: () => Promise<void> } | null = null;
  const events: JobEvent[] = [];
  const start = () => {
    events.length = 0;
    opened = open((e) => events.push(e));
    return opened.queue;
  };
  afterEach(async () => {
    await opened?.queue.close(5_000);
    await opened?.cleanup();
    opened = null;
  });

  it('runs every enqueued job once with its validated payload', async () => {
    const queue = start();
    const seen: string[] = [];
    queue.process({ 'index.event': async (p) => void seen.push(p.eventId) });
    await queue.enqueueMany('index.event', ['a', 'b', 'c'].map((id) => ({ payload: payload(id), jobId: `evt:${id}` })));
    await queue.idle();
    expect(seen.sort()).toEqual(['a', 'b', 'c']);
  });

  it('reports to observers attached later (jobs and depths read); an observer that throws breaks nothing', async () => {
    const queue = start();
    const jobs: string[] = [];
    const depths: number[] = [];
    queue.observe({ onJob: () => { throw new Error('observer fault'); } });
    const stop = queue.observe({ onJob: (e) => void jobs.push(`${e.jobId}:${e.outcome}`), onDepth: (d) => void depths.push(d['index.event'].completed) });
    queue.process({ 'index.event': async () => undefined });
    await queue.enqueue('index.event', payload('o1'), { jobId: 'obs1' });
    await queue.idle();
    const read = await queue.depths();
    expect(jobs).toEqual([expect.stringMatching(/^obs1:completed$/)]);
    expect(events.map((e) => e.outcome)).toEqual(['completed']);
    expect(depths).toEqual([read['index.event'].completed]);
    stop();
    await queue.enqueue('index.event', payload('o2'), { jobId: 'obs2' });
    await queue.idle();
    expect(jobs).toHaveLength(1);
  });

  it('collapses jobs with the same id while the first is pending', async () => {
    const queue = start();
    const seen: string[] = [];
    await queue.enqueue('index.event', payload('x'), { jobId: 'same' });
    await queue.enqueue('index.event', payload('x'), { jobId: 'same' });
    queue.process({ 'index.event': async (p) => void seen.push(p.eventId) });
    await queue.idle();
    expect(seen).toEqual(['x']);
  });

  it('treats a job id that completed recently as a duplicate', async () => {
    const queue = start();
    const seen: string[] = [];
    queue.process({ 'index.event': async (p) => void seen.push(p.eventId) });
    await queue.enqueue('index.event', payload('once'), { jobId: 'done-once' });
    await queue.idle();
    await queue.enqueue('index.event', payload('once'), { jobId: 'done-once' });
    await queue.idle();
    expect(seen).toEqual(['once']);
  });

  it("still treats a completed job id as a duplicate after 10,000 jobs of another kind (each kind's memory is its own)", async () => {
    const queue = start();
    let reclusters = 0;
    queue.process({ 'index.event': async () => undefined, 'cluster.recluster': async () => void reclusters++ });
    await queue.enqueue('cluster.recluster', { workspaceId: 'ws_test' }, { jobId: 'recluster:ws_test:window' });
    await queue.idle();
    await queue.enqueueMany('index.event', Array.from({ length: 10_001 }, (_, i) => ({ payload: payload(`e${i}`), jobId: `evt:${i}` })));
    await queue.idle();
    await queue.enqueue('cluster.recluster', { workspaceId: 'ws_test' }, { jobId: 'recluster:ws_test:window' });
    await queue.idle();
    expect(reclusters).toBe(1);
  }, 120_000);

  it('retries a transient failure with backoff until it succeeds', async () => {
    const queue = start();
    let tries = 0;
    queue.process({
      'index.event': async () => {
        tries++;
        if (tries < 3) throw new Error('database restarting');
      },
    });
    await queue.enqueue('index.event', payload('retry'), { jobId: 'retry' });
    await queue.idle();
    expect(tries).toBe(3);
    expect(events.map((e) => e.outcome)).toEqual(['retry', 'retry', 'completed']);
  });

  it('fails a permanent error at once, and an invalid payload without calling the handler', async () => {
    const queue = start();
    let calls = 0;
    queue.process({
      'index.event': async () => {
        calls++;
        throw new PermanentJobError('event row is gone');
      },
    });
    await queue.enqueue('index.event', payload('perm'), { jobId: 'perm' });
    await queue.enqueue('index.event', { workspaceId: 42 } as never, { jobId: 'bad' });
    await queue.idle();
    expect(calls).toBe(1);
    expect(events.filter((e) => e.outcome === 'failed')).toHaveLength(2);
    expect(events.some((e) => e.outcome === 'retry')).toBe(false);
    expect((await queue.depths())['index.event'].failed).toBe(2);
  });

  it('never runs more jobs of a kind at once than the catalog allows', async () => {
    const queue = start();
    let running = 0;
    let peak = 0;
    queue.process({
      'index.event': async () => {
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, 30));
        running--;
      },
    });
    await queue.enqueueMany('index.event', Array.from({ length: 24 }, (_, i) => ({ payload: payload(`c${i}`), jobId: `c${i}` })));
    await queue.idle();
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(jobCatalog['index.event'].concurrency);
  });

  it('lets a running job finish when the queue closes', async () => {
    const queue = start();
    let finished = false;
    let started!: () => void;
    const isRunning = new Promise<void>((r) => (started = r));
    queue.process({
      'index.event': async () => {
        started();
        await new Promise((r) => setTimeout(r, 200));
        finished = true;
      },
    });
    await queue.enqueue('index.event', payload('drain'), { jobId: 'drain' });
    await isRunning;
    await queue.close(5_000);
    expect(finished).toBe(true);
  });

  it('aborts a running job\'s signal when the queue closes, and reports the job stopped, not failed', async () => {
    const queue = start();
    let started!: () => void;
    const isRunning = new Promise<void>((r) => (started = r));
    let reason: unknown = null;
    queue.process({
      // Runs until its signal aborts, as a re-cluster's slices do.
      'cluster.recluster': async (_payload, { signal }) => {
        started();
        while (!signal.aborted) await new Promise((r) => setTimeout(r, 10));
        reason = signal.reason;
        throw signal.reason;
      },
    });
    await queue.enqueue('cluster.recluster', { workspaceId: 'ws_test' }, { jobId: 'long' });
    await isRunning;
    await queue.close(jobCatalog['cluster.recluster'].timeoutMs);
    expect(reason).toBeInstanceOf(JobStoppedError);
    expect(events.map((e) => e.outcome)).toEqual(['stopped']);
  });
});

describe.skipIf(!redis)('bullmq: a job stopped by close', () => {
  it('goes back to the queue without spending an attempt and runs on the next worker', async () => {
    const prefix = `engram-test-${randomSuffix()}`;
    const first = createBullQueue(redis!, { prefix });
    try {
      let started!: () => void;
      const isRunning = new Promise<void>((r) => (started = r));
      first.process({
        'cluster.recluster': async (_payload, { signal }) => {
          started();
          while (!signal.aborted) await new Promise((r) => setTimeout(r, 10));
          throw signal.reason;
        },
      });
      await first.enqueue('cluster.recluster', { workspaceId: 'ws_test' }, { jobId: 'long' });
      await isRunning;
      await first.close(10_000);

      const attempts: number[] = [];
      const second = createBullQueue(redis!, { prefix });
      second.process({ 'cluster.recluster': async (_payload, { attempt }) => void attempts.push(attempt) });
      await second.idle();
      const depth = (await second.depths())['cluster.recluster'];
      await second.close(5_000);
      expect(attempts).toEqual([1]);
      expect(depth.failed).toBe(0);
    } finally {
      await obliterateQueues(redis!, prefix);
    }
  });
});
