/**
 * Chaos on the distributed deployment (issue 18): an api process and a worker process on a PostgreSQL
 * cluster and a Redis server this suite owns, against the fake GitHub with every fault it can inject
 * (429s with Retry-After, spent rate limits, 5xx bursts, attempts that hang, 200s with their JSON cut
 * short). The worker and the api are SIGKILLed at seeded random points of a backfill and of an import,
 * and started again; Redis is killed and Postgres stopped mid-backfill, then both come back. While a
 * store is down the API answers 503 with the error body within its deadline. At the end every source
 * object is indexed exactly once, with the content hash its source gives, and embedded.
 *
 * Size: `CHAOS_KILLS` (default 3, the CI size) and `CHAOS_ITEMS` (default 40: 60 objects a phase);
 * `npm run chaos` runs 20 kills with CHAOS_ITEMS=200 (300 objects a phase). `CHAOS_SEED` picks the kill points.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubConnector, normalizeGitHubObject } from '@engram/connectors';
import { eventContentHash } from '@engram/stores';
import { SourceEvent } from '@engram/contracts';
import { deliverWebhook, hasPrettierCorpus, PRETTIER_CORPUS_PATH, prettierSubset, startFakeGitHub, walkStream, type FakeGitHub } from '../fakes/github/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/index.js';
import { waitFor } from '../e2e/processes.js';
import { startDeployment, type Deployment } from './deployment.js';
import { ownStoresUnavailable, startOwnPostgres, startOwnRedis, type OwnPostgres, type OwnRedis } from './stores.js';

const KILLS = Number(process.env.CHAOS_KILLS ?? 3);
const ITEMS = Number(process.env.CHAOS_ITEMS ?? 40);
const SEED = Number(process.env.CHAOS_SEED ?? 18);
const REPO = 'prettier/prettier';
const TOKEN = 'ghp_chaos_token';
const HOOK_REPO = 'chaos/hooks';
const HOOK_SECRET = 'whsec_chaos_secret';
const DEADLINE_MS = 3_000;


/** mulberry32: the kill points and targets are the same on every run of one seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const why = ownStoresUnavailable() ?? (hasPrettierCorpus() ? null : `no corpus at ${PRETTIER_CORPUS_PATH}`);
if (why && process.env.CI === 'true') throw new Error(`the chaos suite cannot run: ${why}`);

describe.skipIf(why !== null)(`chaos: SIGKILLs, store restarts and provider faults on the distributed deployment${why ? ` (skipped: ${why})` : ''}`, () => {
  const random = prng(SEED);
  // Backfill objects and import objects are disjoint slices of the corpus.
  const all = why ? { pulls: [], commits: [] } : prettierSubset({ pulls: ITEMS, commits: ITEMS * 2 });
  const half = (list: readonly unknown[], first: boolean) => (first ? list.slice(0, Math.ceil(list.length / 2)) : list.slice(Math.ceil(list.length / 2)));
  const backfillObjects = [...half(all.pulls, true), ...half(all.commits, true)];
  const importObjects = [...half(all.pulls, false), ...half(all.commits, false)];

  let pgStore: OwnPostgres;
  let redis: OwnRedis;
  let github: FakeGitHub;
  let openai: FakeOpenAI;
  let d: Deployment | undefined;
  let db: pg.Pool;
  let dataDir: string;
  const faults = { kills: { api: 0, worker: 0 }, storeOutages: 0, unavailableAnswers: 0 };

  beforeAll(async () => {
    [pgStore, redis] = await Promise.all([startOwnPostgres(), startOwnRedis()]);
    dataDir = await mkdtemp(join(tmpdir(), 'engram-chaos-data-'));
    github = await startFakeGitHub({
      repo: REPO, token: TOKEN, items: backfillObjects,
      rateLimit: { limit: 120, resetMs: 500, status: 429 },
      secondaryLimit: { every: 53, retryAfterSeconds: 1, status: 429 },
      failBursts: { every: 37, length: 2, status: 502 },
      hangs: { every: 71 },
      truncate: { every: 29 },
    });
    openai = await startFakeOpenAI({ apiKey: 'sk-chaos' });
    db = new pg.Pool({ connectionString: pgStore.url, max: 2 });
    db.on('error', () => undefined);
  }, 120_000);

  afterAll(async () => {
    await d?.stop();
    await db?.end().catch(() => undefined);
    await github?.close();
    await openai?.close();
    await redis?.destroy();
    await pgStore?.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    console.log(`chaos (seed ${SEED}): ${JSON.stringify({ ...faults, provider: github && { requests: github.state.requests, rateLimited: github.state.rateLimited + github.state.secondaryLimited, failed5xx: github.state.failed, hung: github.state.hung, truncated: github.state.truncated } })}`);
  });

  const env = () => ({
    DATABASE_URL: pgStore.url, REDIS_URL: redis.url, ENGRAM_QUEUE_PREFIX: 'chaos',
    ENGRAM_ADMIN_TOKEN: 'chaos-admin-token-0123456789', ENGRAM_SECRET_KEY: 'chaos-secret-key-0123456789abcdef',
    ENGRAM_DATA_DIR: dataDir,
    EMBEDDING_PROVIDER: 'openai', EMBEDDING_BASE_URL: openai.url, EMBEDDING_API_KEY: 'sk-chaos', EMBEDDING_DIMENSIONS: '64',
    SYNC_INTERVAL_MS: '3600000', RECLUSTER_INTERVAL_MS: '3600000',
    PROVIDER_REQUEST_TIMEOUT_MS: '1000', API_REQUEST_DEADLINE_MS: String(DEADLINE_MS), QUEUE_LOCK_MS: '6000', PENDING_SWEEP_MS: '10000',
  });

  /** An admin call; a refused connection (the api is being restarted) is tried again. */
  async function admin<T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(`${d!.api.url}${path}`, {
          method, headers: { authorization: `Bearer ${d!.adminToken}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, json: (await res.json()) as T };
      } catch (err) {
        if (attempt >= 50) throw new Error(`${method} ${path}: ${(err as Error).message}; api output:\n${d!.api.output().slice(-3_000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  const kill = async (which: 'api' | 'worker') => {
    faults.kills[which]++;
    await d!.killAndRestart(which);
  };
  const pick = (): 'api' | 'worker' => (random() < 0.3 ? 'api' : 'worker');
  /** `n` seeded fractions of the way through, ascending. */
  const points = (n: number) => Array.from({ length: n }, () => 0.1 + random() * 0.8).sort((a, b) => a - b);

  const count = async (sql: string, params: unknown[]) => Number((await db.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);
  const staged = (workspaceId: string) => count('SELECT count(*) AS n FROM source_events WHERE workspace_id = $1', [workspaceId]);
  const indexed = (workspaceId: string) => count('SELECT count(*) AS n FROM items WHERE workspace_id = $1', [workspaceId]);

  let lastState = '';
  async function drained(): Promise<boolean> {
    const status = await admin<{ queues: Record<string, { waiting: number; active: number; delayed: number; failed: number }> }>('GET', '/admin/status');
    if (status.status !== 200) return false;
    const events = (await db.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM source_events GROUP BY status')).rows;
    lastState = JSON.stringify({ events, queues: status.json.queues });
    const pending = events.filter((e) => e.status !== 'indexed' && e.status !== 'skipped').length;
    // Delayed sync.page and recluster jobs are the periodic schedules; delayed index jobs are retries.
    const q = status.json.queues;
    return pending === 0 && q['index.event']!.waiting + q['index.event']!.active + q['index.event']!.delayed === 0 && q['sync.page']!.waiting + q['sync.page']!.active === 0;
  }
  const waitDrained = () => waitFor('indexing drained', drained, 180_000, 500).catch((err: Error) => {
    throw new Error(`${err.message}: ${lastState}`);
  });

  /**
   * The content hash an item of this source event must carry: the indexer hashes the event as it reads it
   * back from its staged `jsonb` row (key order included), so the expected hash takes the same way.
   */
  async function sourceHashes(events: SourceEvent[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const e of events) {
      const stored = (await db.query<{ e: unknown }>('SELECT $1::jsonb AS e', [JSON.stringify(e)])).rows[0]!.e;
      out.set(e.externalId, eventContentHash(SourceEvent.parse(stored)));
    }
    return out;
  }

  /** Every expected object is one item with its source's content hash, embedded; nothing else is there. */
  async function expectExactlyOnce(workspaceId: string, expected: Map<string, string>) {
    const rows = (await db.query<{ external_id: string; content_hash: string; embedded: boolean; n: string }>(
      'SELECT external_id, min(content_hash) AS content_hash, bool_and(embedding_hash IS NOT NULL) AS embedded, count(*) AS n FROM items WHERE workspace_id = $1 GROUP BY external_id',
      [workspaceId],
    )).rows;
    expect(rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
    expect(new Set(rows.map((r) => r.external_id))).toEqual(new Set(expected.keys()));
    const wrong = rows.filter((r) => r.content_hash !== expected.get(r.external_id)).map((r) => `${r.external_id}: ${r.content_hash} != ${expected.get(r.external_id)}`);
    expect(wrong).toEqual([]);
    expect(rows.filter((r) => !r.embedded)).toEqual([]);
  }

  /** A search with the key: status, body and how long it took. */
  async function search(key: string, workspaceId: string) {
    const started = Date.now();
    const res = await fetch(`${d!.api.url}/v1/search`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-workspace-id': workspaceId, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'fix the printer', limit: 3 }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: Date.now() - started, retryAfter: res.headers.get('retry-after') };
  }

  it(`a backfill survives ${Math.ceil(KILLS / 2)} seeded SIGKILLs, a Redis crash and a Postgres stop, and indexes every object once`, async () => {
    d = await startDeployment(env());
    const ws = (await admin<{ id: string }>('POST', '/admin/workspaces', { name: 'chaos-backfill' })).json.id;
    const key = (await admin<{ key: string }>('POST', `/admin/workspaces/${ws}/keys`)).json.key;
    const conn = await admin<{ id: string }>('POST', '/admin/connections', { workspaceId: ws, provider: 'github', token: TOKEN, config: { repo: REPO, baseUrl: github.url }, verify: false });
    expect(conn.status).toBe(201);
    // A second connection, to a repository only webhooks talk about, for the delivery made while Redis is down.
    const hookWs = (await admin<{ id: string }>('POST', '/admin/workspaces', { name: 'chaos-hooks' })).json.id;
    expect((await admin('POST', '/admin/connections', { workspaceId: hookWs, provider: 'github', token: TOKEN, config: { repo: HOOK_REPO, baseUrl: github.url }, webhookSecret: HOOK_SECRET, verify: false })).status).toBe(201);

    // What the source holds: the same objects walked through a fault-free fake with the production connector.
    const clean = await startFakeGitHub({ repo: REPO, token: TOKEN, items: backfillObjects });
    const events: SourceEvent[] = [];
    try {
      const connector = createGitHubConnector({ repo: REPO, token: TOKEN, baseUrl: clean.url });
      for (const stream of connector.streams()) events.push(...(await walkStream<SourceEvent>(stream)).events);
    } finally {
      await clean.close();
    }
    const expected = await sourceHashes(events);
    expect(expected.size).toBe(backfillObjects.length);

    expect((await admin('POST', `/admin/connections/${conn.json.id}/backfill`, {})).status).toBe(202);
    const kills = points(Math.ceil(KILLS / 2));
    const outagesAt = 0.5;
    let outagesDone = false;
    for (const at of [...kills, outagesAt].sort((a, b) => a - b)) {
      await waitFor(`${Math.round(at * 100)}% of the backfill staged`, async () => (await staged(ws)) >= at * expected.size, 180_000, 100);
      if (at === outagesAt && !outagesDone) {
        outagesDone = true;
        // Redis dies: searches still answer (they need only Postgres); a webhook that must enqueue answers
        // 503 with the error body at its deadline instead of hanging, and its item is indexed once Redis is back.
        await redis.kill();
        faults.storeOutages++;
        const during = await search(key, ws);
        expect(during.status).toBe(200);
        const issue = { number: 7, title: 'Webhook sent while Redis was down', body: 'chaos', state: 'open', html_url: `https://github.com/${HOOK_REPO}/issues/7`, user: { login: 'chaos' }, created_at: '2026-11-01T10:00:00Z', updated_at: '2026-11-01T10:00:00Z', labels: [] };
        const started = Date.now();
        const hook = await deliverWebhook(`${d.api.url}/webhooks/github`, { event: 'issues', deliveryId: randomUUID(), payload: { action: 'opened', issue, repository: { full_name: HOOK_REPO } }, secret: HOOK_SECRET });
        const hookMs = Date.now() - started;
        expect(hook.status, hook.body).toBe(503);
        expect(JSON.parse(hook.body)).toMatchObject({ code: 'UNAVAILABLE', status: 503, data: { reason: 'deadline' } });
        expect(hookMs).toBeLessThan(DEADLINE_MS + 2_000);
        faults.unavailableAnswers++;
        await redis.start();

        // Postgres stops as in a crash: every request answers 503 with the error body, none hangs.
        await pgStore.stop();
        faults.storeOutages++;
        for (let i = 0; i < 3; i++) {
          const down = await search(key, ws);
          expect(down.status, JSON.stringify(down.body)).toBe(503);
          expect(down.body).toMatchObject({ code: 'UNAVAILABLE', error: 'UNAVAILABLE', status: 503 });
          expect(down.retryAfter).toBe('1');
          expect(down.ms).toBeLessThan(DEADLINE_MS + 2_000);
          faults.unavailableAnswers++;
        }
        expect(await fetch(`${d.api.url}/readyz`).then((r) => r.status)).toBe(503);
        await pgStore.start();
        await waitFor('search answers again', async () => (await search(key, ws)).status === 200, 30_000, 250);
      } else {
        await kill(pick());
      }
    }
    await waitFor('backfill done', async () => {
      const c = await admin<{ streams: { mode: string; state: string }[] }>('GET', `/admin/connections/${conn.json.id}`);
      return c.status === 200 && c.json.streams.filter((s) => s.mode === 'backfill').every((s) => s.state === 'done');
    }, 180_000, 250);
    await waitDrained();

    await expectExactlyOnce(ws, expected);
    expect(await indexed(hookWs)).toBe(1);
    expect(github.state.rateLimited + github.state.secondaryLimited).toBeGreaterThan(0);
    expect(github.state.failed).toBeGreaterThan(0);
    expect(github.state.hung).toBeGreaterThan(0);
    expect(github.state.truncated).toBeGreaterThan(0);
  }, 600_000);

  it(`an import survives ${Math.floor(KILLS / 2) + 1} seeded SIGKILLs (api mid-upload, worker mid-indexing) and indexes every object once`, async () => {
    d ??= await startDeployment(env());
    const ws = (await admin<{ id: string }>('POST', '/admin/workspaces', { name: 'chaos-import' })).json.id;
    const content = importObjects.map((o) => JSON.stringify(o)).join('\n');
    const expected = await sourceHashes(importObjects.map((o) => normalizeGitHubObject(o, REPO)));

    // The api dies while the file is being staged; the client sends it again (same file, same import).
    const upload = fetch(`${d.api.url}/admin/imports`, {
      method: 'POST', headers: { authorization: `Bearer ${d.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId: ws, provider: 'github', repo: REPO, content }),
    }).then((r) => r.status, () => 'killed');
    await new Promise((r) => setTimeout(r, 50 + random() * 400));
    await kill('api');
    const first = await upload;
    const again = await admin<{ importId: string; staged: number; invalid: number }>('POST', '/admin/imports', { workspaceId: ws, provider: 'github', repo: REPO, content });
    expect(again.status, `${first} then ${JSON.stringify(again.json)}`).toBe(202);
    expect(again.json).toMatchObject({ staged: importObjects.length, invalid: 0 });

    for (const at of points(Math.floor(KILLS / 2))) {
      const reached = await waitFor(`${Math.round(at * 100)}% indexed`, async () => {
        const n = await indexed(ws);
        return n >= at * expected.size || n === expected.size ? n : null;
      }, 180_000, 50);
      if (reached >= expected.size) break;
      await kill('worker');
    }
    await waitDrained();
    await expectExactlyOnce(ws, expected);
  }, 600_000);

  it('every kill and outage above happened', () => {
    expect(faults.kills.api + faults.kills.worker).toBeGreaterThanOrEqual(Math.min(KILLS, 2));
    expect(faults.storeOutages).toBe(2);
  });
});
