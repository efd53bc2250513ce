/** `GET /metrics` on the real api: admin-guarded Prometheus text with the series an operator graphs. */
import { createConnection } from '@engram/stores';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, story } from './support/events.js';
import { startApi, type Api, type Tenant } from './support/server.js';

/** The value of the first sample whose name and labels contain every given fragment. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('/metrics', () => {
  let api: Api;
  let tenant: Tenant;
  let admin: string;
  const scrape = async (token: string | null = admin) => {
    const res = await fetch(`${api.base}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  beforeAll(async () => {
    api = await startApi({ name: 'metrics', env: { DATABASE_URL: 'pglite://memory' } });
    admin = api.runtime.admin.token!;
    tenant = await api.tenant();
    await api.index(tenant.workspaceId, allEvents());
  });
  afterAll(async () => api?.close());

  it('is behind the admin token, and says whether the token was missing or wrong', async () => {
    const missing = await scrape(null);
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text).message).toMatch(/admin token required/);
    const wrong = await scrape('not-the-admin-token');
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).message).toMatch(/invalid admin token/);
    expect((await scrape(tenant.key)).status).toBe(401);
  });

  it('counts searches per mode, with each retrieval stage timed', async () => {
    for (const mode of ['fast', 'balanced', 'fast'] as const) {
      expect((await api.post('/v1/search', { query: story.fixPr.title, mode }, tenant)).status).toBe(200);
    }
    expect((await api.post('/v1/search', { query: 'x', limit: 500 }, tenant)).status).toBe(400);
    await api.post('/v1/contents', { ids: ['obs_missing'] }, tenant);
    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'engram_request_duration_seconds_count', { operation: 'search', mode: 'fast', status: '200' })).toBe(2);
    expect(sample(text, 'engram_request_duration_seconds_count', { operation: 'search', mode: 'balanced', status: '200' })).toBe(1);
    expect(sample(text, 'engram_request_duration_seconds_count', { operation: 'search', status: '400' })).toBe(1);
    expect(sample(text, 'engram_request_duration_seconds_count', { operation: 'contents', mode: 'none', status: '200' })).toBe(1);
    expect(sample(text, 'engram_search_stage_duration_seconds_count', { mode: 'fast', stage: 'retrieval' })).toBe(2);
    expect(sample(text, 'engram_search_stage_duration_seconds_count', { mode: 'balanced', stage: 'rerank' })).toBe(1);
    expect(sample(text, 'engram_embedding_calls_total', { use: 'query' })).toBeGreaterThan(0);
    expect(sample(text, 'engram_embedding_errors_total', { use: 'query' })).toBe(0);
    expect(text).not.toMatch(/stage="total"|stage="maxParallel"/);
  });

  it('reports queue depth per queue and state, and sync lag per connection', async () => {
    const connection = await createConnection(api.runtime.db, api.runtime.secretBox, { workspaceId: tenant.workspaceId, provider: 'github', config: { repo: 'acme/widgets' }, token: 'ghp_x' });
    const { text } = await scrape();
    expect(sample(text, 'engram_queue_jobs', { queue: 'index.event', state: 'waiting' })).toBe(0);
    const lag = sample(text, 'engram_sync_lag_seconds', { connection: connection.id, provider: 'github' });
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(600);
    expect(sample(text, 'engram_ready')).toBe(1);
    expect(text).not.toContain('ghp_x');
  });

  it('counts the jobs this process runs, by queue and outcome', async () => {
    await scrape();
    let ran = 0;
    api.runtime.queue.process({
      'actors.expertise': async () => {
        ran++;
      },
    });
    await api.runtime.queue.enqueue('actors.expertise', { workspaceId: tenant.workspaceId, actorIds: [] }, { jobId: 'metrics-test-job' });
    for (let i = 0; i < 100 && ran === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { text } = await scrape();
    expect(sample(text, 'engram_jobs_total', { queue: 'actors.expertise', outcome: 'completed' })).toBe(1);
  });
});
