/**
 * The split worker's `/metrics` (ENGRAM_ROLE=worker: server Postgres and BullMQ on Redis): behind the admin
 * token, it counts the jobs this process ran and the embedding calls they made, which the api cannot see.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importGitHubExport } from '@engram/connectors';
import { createLogger, createRuntime, loadConfig, startJobs, type Jobs, type Runtime } from '@engram/runtime';
import { getImportProgress } from '@engram/stores';
import { databaseBackends, randomSuffix, redisUrl, skipReason, testWorkspace } from '@engram/stores/testing';
import { syntheticIssues } from '../../../test/fakes/github/index.js';
import { createHealthServer } from '../src/health.js';

const postgres = databaseBackends().find((b) => b.name === 'postgres')?.url;
const redis = redisUrl();
const ADMIN_TOKEN = `egadm_worker_metrics_${randomSuffix()}`;

/** The value of one series in Prometheus text, or null when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.indexOf('}'));
    const got = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.indexOf('}') + 1));
  }
  return null;
}

describe.skipIf(!postgres || !redis)(postgres && redis ? 'worker /metrics (postgres + BullMQ)' : `worker /metrics (skipped: ${skipReason('DATABASE_URL and REDIS_URL')})`, () => {
  let runtime: Runtime;
  let jobs: Jobs;
  let server: Server;
  let base: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'engram-worker-metrics-'));
    const config = loadConfig({
      ENGRAM_ROLE: 'worker',
      DATABASE_URL: postgres,
      REDIS_URL: redis,
      // Its own queues: no other process on this Redis takes these jobs, and this worker takes no one else's.
      ENGRAM_QUEUE_PREFIX: `engram-worker-metrics-${randomSuffix()}`,
      ENGRAM_SECRET_KEY: 'worker-metrics-test-secret-key-0123456789',
      ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN,
      ENGRAM_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
    });
    runtime = await createRuntime(config, createLogger({ level: 'warn', name: 'engram-worker' }));
    server = createHealthServer(runtime);
    jobs = await startJobs(runtime);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.close();
    await jobs?.stop();
    await runtime?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 401 in the error body without the admin token, and with a wrong one', async () => {
    const none = await fetch(`${base}/metrics`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: expect.stringContaining('admin token required') });
    const wrong = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer egadm_not_the_token' } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { message: string }).message).toContain('invalid admin token');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('counts the index jobs this worker ran and the embedding calls they made', async () => {
    const workspaceId = await testWorkspace(runtime.db, 'worker-metrics');
    const issues = syntheticIssues(4, { firstNumber: 900 }).map((i) => ({ ...i, html_url: `https://github.com/acme/widgets/issues/${i.number}` }));
    const content = JSON.stringify(issues);
    const imported = await importGitHubExport({ db: runtime.db, queue: runtime.queue }, { workspaceId, repo: 'acme/widgets', content });
    expect(imported.errors).toEqual([]);
    expect(imported.staged).toBe(4);
    await expect
      .poll(async () => (await getImportProgress(runtime.db, imported.importId))?.pending, { timeout: 60_000, interval: 200 })
      .toBe(0);

    const worker = { service: 'engram-worker' };
    const scrape = async () => (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
    // A job is counted when its handler returns, which is after its event is marked indexed (the handler then
    // asks for a re-cluster and an expertise pass): the last jobs may still be finishing.
    await expect
      .poll(async () => sample(await scrape(), 'engram_jobs_total', { ...worker, queue: 'index.event', outcome: 'completed' }), { timeout: 10_000, interval: 100 })
      .toBeGreaterThanOrEqual(4);
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(sample(text, 'engram_embedding_calls_total', { ...worker, use: 'index' })).toBeGreaterThan(0);
    expect(sample(text, 'engram_embedding_texts_total', { ...worker, use: 'index' })).toBeGreaterThanOrEqual(4);
    expect(sample(text, 'engram_embedding_errors_total', { ...worker, use: 'index' })).toBe(0);
    expect(text).toContain('engram_process_process_cpu_seconds_total');
    // Deployment-wide gauges are the api's: exposed here too, a sum over processes would count them twice.
    expect(text).not.toContain('engram_queue_jobs');
    expect(text).not.toContain('engram_sync_lag_seconds');
  });
});
