/**
 * The "done means", end to end: the real server process, the `engram` CLI, the fake GitHub fed
 * with real prettier objects (with rate limits and 5xx bursts), a SIGKILL in the middle of the backfill,
 * a restart; then every object is indexed exactly once. Also `import github --wait` of the same objects.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@engram/stores';
import { normalizeGitHubObject } from '@engram/connectors';
import { deliverWebhook, hasPrettierCorpus, PRETTIER_CORPUS_PATH, prettierSubset, startFakeGitHub, type FakeGitHub } from '../fakes/github/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/index.js';
import { adminGet, runCli, startServer, waitFor, type ServerProcess } from './processes.js';

const REPO = 'prettier/prettier';
const TOKEN = 'ghp_e2e_fake_token';
const WEBHOOK_SECRET = 'whsec_e2e_secret';
interface Stream { mode: string; state: string; items: number }
interface Status { queues: Record<string, { waiting: number; active: number; delayed: number }> }

describe.skipIf(!hasPrettierCorpus())(`backfill end to end, killed and restarted (corpus: ${PRETTIER_CORPUS_PATH})`, () => {
  // A skipped describe still runs its body to collect tests: read the corpus only when it exists.
  const subset = hasPrettierCorpus() ? prettierSubset({ pulls: 100, commits: 150 }) : { pulls: [], commits: [] };
  const objects = [...subset.pulls, ...subset.commits];
  const expected = new Set(objects.map((o) => normalizeGitHubObject(o, REPO).externalId));
  let dataDir: string;
  let github: FakeGitHub;
  let openai: FakeOpenAI;
  let server: ServerProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'engram-e2e-'));
    github = await startFakeGitHub({
      repo: REPO, token: TOKEN, items: objects,
      rateLimit: { limit: 150, resetMs: 500 },
      secondaryLimit: { every: 97, retryAfterSeconds: 1 },
      failBursts: { every: 41, length: 2, status: 502 },
    });
    openai = await startFakeOpenAI({ apiKey: 'sk-e2e' });
    env = {
      ENGRAM_DATA_DIR: dataDir,
      EMBEDDING_PROVIDER: 'openai', EMBEDDING_BASE_URL: openai.url, EMBEDDING_API_KEY: 'sk-e2e', EMBEDDING_MODEL: 'text-embedding-3-small', EMBEDDING_DIMENSIONS: '64',
      SYNC_INTERVAL_MS: '3600000',
    };
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await github?.close();
    await openai?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('indexes every object exactly once despite a SIGKILL mid-backfill, rate limits and 5xx bursts', async () => {
    server = await startServer(env);
    const cli = (args: string[]) => runCli(['--url', server!.url, '--json', ...args], { ENGRAM_DATA_DIR: dataDir });

    const ws = await cli(['workspace', 'create', '--name', 'e2e']);
    expect(ws.code, ws.stderr).toBe(0);
    const workspaceId = String(ws.json.id);
    const key = await cli(['key', 'create', '--workspace', workspaceId]);
    expect(key.json).toMatchObject({ workspaceId, key: expect.any(String) });
    const conn = await cli(['connect', 'github', '--workspace', workspaceId, '--repo', REPO, '--token', TOKEN, '--base-url', github.url, '--webhook-secret', WEBHOOK_SECRET]);
    expect(conn.code, conn.stderr).toBe(0);
    expect(conn.stdout).not.toContain(TOKEN);
    expect(conn.stdout).not.toContain(WEBHOOK_SECRET);
    const connectionId = String(conn.json.id);
    const started = await cli(['backfill', '--connection', connectionId, '--no-wait']);
    expect(started.json).toMatchObject({ started: true });

    // Kill -9 once a good part of the history is staged, then restart on the same data directory.
    const token = (await import('node:fs')).readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const items = async () => (await adminGet<{ streams: Stream[] }>(server!, token, `/admin/connections/${connectionId}`)).streams.reduce((n, s) => n + s.items, 0);
    await waitFor('a third of the backfill', async () => (await items()) >= expected.size / 3, 120_000);
    server.child.kill('SIGKILL');
    await server.exited;
    server = await startServer(env);

    // The restarted server resumes from the checkpoints on its own; `backfill` output comes from the CLI.
    await waitFor('backfill done', async () => {
      const c = await adminGet<{ streams: Stream[] }>(server!, token, `/admin/connections/${connectionId}`);
      return c.streams.filter((s) => s.mode === 'backfill').every((s) => s.state === 'done');
    }, 120_000);
    await waitFor('queues drained', async () => {
      const s = await adminGet<Status>(server!, token, '/admin/status');
      return Object.values(s.queues).every((q) => q.waiting + q.active + q.delayed === 0);
    }, 120_000);
    const status = await cli(['status']);
    expect(status.json).toMatchObject({ connections: [expect.objectContaining({ id: connectionId })] });

    // A webhook delivered twice, and an older one after it: one item, the newest title.
    const pull = subset.pulls[0]!;
    const hook = `${server.url}/webhooks/github`;
    const newer = { action: 'edited', pull_request: { ...pull, title: 'Retitled by a webhook', updated_at: new Date().toISOString() }, repository: { full_name: REPO } };
    const older = { action: 'edited', pull_request: { ...pull, title: 'An older title', updated_at: '2001-01-01T00:00:00Z' }, repository: { full_name: REPO } };
    expect((await deliverWebhook(hook, { event: 'pull_request', deliveryId: 'e2e-1', payload: newer, secret: 'wrong-secret' })).status).toBe(401);
    const first = await deliverWebhook(hook, { event: 'pull_request', deliveryId: 'e2e-1', payload: newer, secret: WEBHOOK_SECRET });
    const redelivered = await deliverWebhook(hook, { event: 'pull_request', deliveryId: 'e2e-1', payload: newer, secret: WEBHOOK_SECRET });
    expect([first.status, JSON.parse(first.body).duplicate]).toEqual([200, false]);
    expect([redelivered.status, JSON.parse(redelivered.body).duplicate]).toEqual([200, true]);
    await waitFor('webhook indexed', async () => {
      const s = await adminGet<Status>(server!, token, '/admin/status');
      return Object.values(s.queues).every((q) => q.waiting + q.active + q.delayed === 0);
    }, 60_000);
    expect((await deliverWebhook(hook, { event: 'pull_request', deliveryId: 'e2e-2', payload: older, secret: WEBHOOK_SECRET })).status).toBe(200);

    // Importing the same objects into another workspace goes through the same path.
    const file = join(dataDir, 'export.jsonl');
    await writeFile(file, objects.slice(0, 40).map((o) => JSON.stringify(o)).join('\n'));
    const other = String((await cli(['workspace', 'create', '--name', 'import'])).json.id);
    const imported = await cli(['import', 'github', '--workspace', other, '--repo', REPO, '--file', file, '--wait']);
    expect(imported.json).toMatchObject({ imported: 40, indexed: 40, failed: 0, invalid: 0 });
    const again = await cli(['import', 'github', '--workspace', other, '--repo', REPO, '--file', file, '--wait']);
    expect(again.json).toMatchObject({ importId: imported.json.importId, imported: 40, indexed: 40 });
    // The end of the import re-clusters the workspace and rebuilds its area model, once indexing is quiet.
    await waitFor('re-cluster after the import', async () => {
      const s = await adminGet<Status>(server!, token, '/admin/status');
      return Object.values(s.queues).every((q) => q.waiting + q.active + q.delayed === 0);
    }, 60_000);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;

    const db = await openDatabase(`pglite://${join(dataDir, 'db')}`);
    try {
      const rows = await db.query<{ external_id: string; n: string }>('SELECT external_id, count(*) AS n FROM items WHERE workspace_id = $1 GROUP BY external_id', [workspaceId]);
      expect(new Set(rows.rows.map((r) => r.external_id))).toEqual(expected);
      expect(rows.rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
      const retitled = await db.query<{ title: string }>('SELECT title FROM items WHERE workspace_id = $1 AND external_id = $2', [workspaceId, `github:${REPO}:pull_request:${pull.number}`]);
      expect(retitled.rows).toEqual([{ title: 'Retitled by a webhook' }]);
      const pending = await db.query("SELECT id FROM source_events WHERE status <> 'indexed' AND status <> 'skipped'");
      expect(pending.rows).toEqual([]);
      const imports = await db.query<{ n: string }>('SELECT count(*) AS n FROM items WHERE workspace_id = $1', [other]);
      expect(Number(imports.rows[0]?.n)).toBe(40);
      // Every imported change is in the area model (a commit folded into its pull request counts with it).
      const changes = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM items i WHERE i.workspace_id = $1 AND NOT (i.type = 'commit' AND EXISTS (SELECT 1 FROM edges e WHERE e.type = 'commit_pr' AND e.target_id = i.id))",
        [other],
      );
      const root = await db.query<{ changes: number }>("SELECT changes FROM areas WHERE workspace_id = $1 AND area = ''", [other]);
      expect(root.rows).toEqual([{ changes: Number(changes.rows[0]?.n) }]);
      expect(Number(changes.rows[0]?.n)).toBeGreaterThan(10);
    } finally {
      await db.close();
    }
    expect(github.state.failed).toBeGreaterThan(0);
    expect(github.state.rateLimited + github.state.secondaryLimited).toBeGreaterThan(0);
  }, 300_000);
});
