// Full-dataset backfill through the real server process, the `engram` CLI and the fake GitHub fed with
// the whole prettier export: sync throughput (items/s), rate-limit waits, time until everything is
// indexed, and (with --kill) a SIGKILL of the server halfway and the resumed run.
// Run: npx tsx bench/backfill.ts [--pulls 4366] [--commits 5000] [--faults] [--kill]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '@engram/stores';
import { hasPrettierCorpus, PRETTIER_CORPUS_PATH, prettierSubset, startFakeGitHub, startFakeOpenAI } from '@engram/test/fakes';
import { adminGet, runCli, startServer, waitFor, type ServerProcess } from '@engram/test/processes';

const { values } = parseArgs({ options: { pulls: { type: 'string', default: '4366' }, commits: { type: 'string', default: '5000' }, faults: { type: 'boolean', default: false }, kill: { type: 'boolean', default: false } } });
if (!hasPrettierCorpus()) throw new Error(`corpus not found at ${PRETTIER_CORPUS_PATH}`);
const REPO = 'prettier/prettier';
const TOKEN = 'ghp_bench';
const subset = prettierSubset({ pulls: Number(values.pulls), commits: Number(values.commits) });
const objects = [...subset.pulls, ...subset.commits];

const github = await startFakeGitHub({
  repo: REPO, token: TOKEN, items: objects,
  ...(values.faults ? { rateLimit: { limit: 2000, resetMs: 1000 }, secondaryLimit: { every: 997, retryAfterSeconds: 1 }, failBursts: { every: 301, length: 3, status: 502 as const } } : {}),
});
const openai = await startFakeOpenAI({ apiKey: 'sk-bench' });
const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-'));
const env = { ENGRAM_DATA_DIR: dataDir, EMBEDDING_PROVIDER: 'openai', EMBEDDING_BASE_URL: openai.url, EMBEDDING_API_KEY: 'sk-bench', EMBEDDING_DIMENSIONS: '256', SYNC_INTERVAL_MS: '3600000' };
let server: ServerProcess = await startServer(env);
const cli = (args: string[]) => runCli(['--url', server.url, '--json', ...args], { ENGRAM_DATA_DIR: dataDir });
interface Stream { mode: string; state: string; items: number; pages: number; rateLimitWaits: number; rateLimitWaitMs: number }

try {
  const workspaceId = String((await cli(['workspace', 'create', '--name', 'bench'])).json.id);
  const connectionId = String((await cli(['connect', 'github', '--workspace', workspaceId, '--repo', REPO, '--token', TOKEN, '--base-url', github.url])).json.id);
  const token = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
  const view = () => adminGet<{ streams: Stream[] }>(server, token, `/admin/connections/${connectionId}`);
  const t0 = performance.now();
  let killedAt: number | null = null;
  if (values.kill) {
    await cli(['backfill', '--connection', connectionId, '--no-wait']);
    await waitFor('half the backfill', async () => (await view()).streams.reduce((n, s) => n + s.items, 0) >= objects.length / 2, 3_600_000, 500);
    server.child.kill('SIGKILL');
    await server.exited;
    killedAt = (performance.now() - t0) / 1000;
    server = await startServer(env);
    await waitFor('backfill done', async () => (await view()).streams.filter((s) => s.mode === 'backfill').every((s) => s.state === 'done'), 3_600_000, 500);
  } else {
    const res = await cli(['backfill', '--connection', connectionId]);
    if (res.code !== 0) throw new Error(`backfill failed: ${res.stderr}`);
  }
  const synced = (performance.now() - t0) / 1000;
  const streams = (await view()).streams.filter((s) => s.mode === 'backfill');
  await waitFor('indexing drained', async () => {
    const s = await adminGet<{ queues: Record<string, { waiting: number; active: number; delayed: number }> }>(server, token, '/admin/status');
    return Object.values(s.queues).every((q) => q.waiting + q.active + q.delayed === 0);
  }, 3_600_000, 1000);
  const indexed = (performance.now() - t0) / 1000;
  server.child.kill('SIGTERM');
  await server.exited;
  const db = await openDatabase(`pglite://${join(dataDir, 'db')}`);
  const counts = await db.query<{ items: string; distinct: string }>('SELECT count(*) AS items, count(DISTINCT external_id) AS distinct FROM items WHERE workspace_id = $1', [workspaceId]);
  await db.close();
  const items = streams.reduce((n, s) => n + s.items, 0);
  console.log(JSON.stringify({
    objects: objects.length,
    faults: values.faults, killedAtSeconds: killedAt,
    syncedItems: items, pages: streams.reduce((n, s) => n + s.pages, 0),
    rateLimitWaits: streams.reduce((n, s) => n + s.rateLimitWaits, 0), rateLimitWaitSeconds: streams.reduce((n, s) => n + s.rateLimitWaitMs, 0) / 1000,
    githubRequests: github.state.requests, github5xx: github.state.failed, githubRateLimited: github.state.rateLimited + github.state.secondaryLimited,
    syncSeconds: Math.round(synced * 10) / 10, syncItemsPerSecond: Math.round((items / synced) * 10) / 10,
    indexedSeconds: Math.round(indexed * 10) / 10, indexedItemsPerSecond: Math.round((objects.length / indexed) * 10) / 10,
    itemsInIndex: Number(counts.rows[0]?.items), distinctItemsInIndex: Number(counts.rows[0]?.distinct),
  }, null, 2));
} finally {
  server.child.kill('SIGKILL');
  await github.close();
  await openai.close();
  await rm(dataDir, { recursive: true, force: true });
}
