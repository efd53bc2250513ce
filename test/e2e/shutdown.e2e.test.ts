/**
 * The foundation's "done means": SIGTERM in the middle of indexing drains the jobs that are running,
 * closes the stores in order and exits 0; a restart on the same data finds every committed item and
 * finishes the rest, each item exactly once.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@engram/stores';
import { hasPrettierCorpus, prettierSubset } from '../fakes/github/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/index.js';
import { adminGet, runCli, startServer, waitFor, type ServerProcess } from './processes.js';

interface Status {
  queues: Record<string, { waiting: number; active: number; delayed: number }>;
}

describe.skipIf(!hasPrettierCorpus())('graceful shutdown and restart of the embedded server', () => {
  // A skipped describe still runs its body to collect tests: read the corpus only when it exists. Enough
  // objects that indexing is still under way at SIGTERM: up to 256 index jobs run at once (two batches of 128).
  const subset = hasPrettierCorpus() ? prettierSubset({ pulls: 600, commits: 600 }) : { pulls: [], commits: [] };
  const objects = [...subset.pulls, ...subset.commits];
  let dataDir: string;
  let openai: FakeOpenAI;
  let server: ServerProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'engram-shutdown-'));
    openai = await startFakeOpenAI({ apiKey: 'sk-shutdown' });
    env = {
      ENGRAM_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_BASE_URL: openai.url,
      EMBEDDING_API_KEY: 'sk-shutdown',
      EMBEDDING_DIMENSIONS: '64',
    };
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await openai?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('drains on SIGTERM, exits 0, and a restart indexes every item exactly once', async () => {
    server = await startServer(env);
    const cli = (args: string[]) => runCli(['--url', server!.url, '--json', ...args], { ENGRAM_DATA_DIR: dataDir });
    const workspaceId = String((await cli(['workspace', 'create', '--name', 'shutdown'])).json.id);
    const file = join(dataDir, 'export.json');
    await writeFile(file, JSON.stringify(objects));
    const imported = await cli(['import', 'github', '--workspace', workspaceId, '--repo', 'prettier/prettier', '--file', file]);
    expect(imported.code, imported.stderr).toBe(0);

    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    await waitFor('indexing under way', async () => {
      const s = await adminGet<Status>(server!, token, '/admin/status');
      return s.queues['index.event']!.active > 0;
    }, 60_000, 20);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const log = server.output();
    const order = ['"shutting down"', '"stopped"'].map((m) => log.indexOf(m));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order[0]).toBeLessThan(order[1]!);

    // What the first run committed is there; the rest is still staged, not lost.
    let db = await openDatabase(`pglite://${join(dataDir, 'db')}`);
    const before = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM items WHERE workspace_id = $1', [workspaceId])).rows[0]!.n);
    const staged = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM source_events WHERE workspace_id = $1', [workspaceId])).rows[0]!.n);
    await db.close();
    expect(staged).toBe(objects.length);
    expect(before).toBeLessThan(objects.length);

    server = await startServer(env);
    await waitFor('the rest indexed after the restart', async () => {
      const s = await adminGet<Status>(server!, token, '/admin/status');
      return Object.values(s.queues).every((q) => q.waiting + q.active + q.delayed === 0);
    }, 120_000);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;

    db = await openDatabase(`pglite://${join(dataDir, 'db')}`);
    try {
      const rows = await db.query<{ external_id: string; n: string }>('SELECT external_id, count(*) AS n FROM items WHERE workspace_id = $1 GROUP BY external_id', [workspaceId]);
      expect(rows.rows).toHaveLength(objects.length);
      expect(rows.rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
      const pending = await db.query("SELECT id FROM source_events WHERE status NOT IN ('indexed', 'skipped')");
      expect(pending.rows).toEqual([]);
    } finally {
      await db.close();
    }
  }, 300_000);
});
