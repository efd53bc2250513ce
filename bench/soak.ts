// Soak: the real server (embedded default: `npm start` on a temp data dir) at a steady mixed request rate
// for a long time while ingestion runs (a GitHub backfill through the fake GitHub, then a steady stream of
// signed webhooks, each a new issue to index). Reports errors, latency percentiles (overall and per
// window) and the server's resident memory over time. Ingestion stops after `--ingest-minutes` (default:
// half the run) while the requests go on, so memory that grows with new items is told apart from memory
// that grows with requests (a leak): the second part's resident memory should stay flat.
// Run: npm run bench -- soak [--minutes 10] [--ingest-minutes 5] [--rate 20] [--hooks-per-second 1] [--preload 400] [--out bench/results/soak.md]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deliverWebhook, hasPrettierCorpus, PRETTIER_CORPUS_PATH, prettierSubset, startFakeGitHub, startFakeOpenAI } from '@engram/test/fakes';
import { adminGet, runCli, startServer, waitFor } from '@engram/test/processes';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    'ingest-minutes': { type: 'string' },
    rate: { type: 'string', default: '20' },
    'hooks-per-second': { type: 'string', default: '1' },
    preload: { type: 'string', default: '400' },
    backfill: { type: 'string', default: '300' },
    'window-seconds': { type: 'string', default: '30' },
    out: { type: 'string' },
  },
});
if (!hasPrettierCorpus()) throw new Error(`corpus not found at ${PRETTIER_CORPUS_PATH}`);
const minutes = Number(values.minutes);
const ingestMinutes = values['ingest-minutes'] === undefined ? minutes / 2 : Number(values['ingest-minutes']);
const rate = Number(values.rate);
const hooksPerSecond = Number(values['hooks-per-second']);
const windowMs = Number(values['window-seconds']) * 1000;
const REPO = 'prettier/prettier';
const TOKEN = 'ghp_soak';
const SECRET = 'whsec_soak_secret';

// Preloaded by an import (so searches have data from the start); the rest arrives by backfill during the soak.
const preload = Number(values.preload);
const backfillCount = Number(values.backfill);
const corpus = prettierSubset({ pulls: Math.ceil((preload + backfillCount) / 2), commits: Math.ceil((preload + backfillCount) / 2) });
const objects = [...corpus.pulls, ...corpus.commits];
const preloaded = objects.filter((_, i) => i % 2 === 0).slice(0, preload);
const backfilled = objects.filter((_, i) => i % 2 === 1).slice(0, backfillCount);

const github = await startFakeGitHub({ repo: REPO, token: TOKEN, items: backfilled, rateLimit: { limit: 60, resetMs: 2_000 } });
const openai = await startFakeOpenAI({ apiKey: 'sk-soak' });
const dataDir = await mkdtemp(join(tmpdir(), 'engram-soak-'));
const env = { ENGRAM_DATA_DIR: dataDir, EMBEDDING_PROVIDER: 'openai', EMBEDDING_BASE_URL: openai.url, EMBEDDING_API_KEY: 'sk-soak', EMBEDDING_DIMENSIONS: '256', SYNC_INTERVAL_MS: '3600000' };
const server = await startServer(env);
const cli = (args: string[]) => runCli(['--url', server.url, '--json', ...args], { ENGRAM_DATA_DIR: dataDir });
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0);
const round = (x: number) => Math.round(x * 10) / 10;
/** The server process's resident memory (its worker threads included), MB. */
const rssMb = (): number => {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${server.child.pid!}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
};

try {
  const workspaceId = String((await cli(['workspace', 'create', '--name', 'soak'])).json.id);
  const key = String((await cli(['key', 'create', '--workspace', workspaceId])).json.key);
  const token = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
  const file = join(dataDir, 'preload.jsonl');
  await writeFile(file, preloaded.map((o) => JSON.stringify(o)).join('\n'));
  const imported = await cli(['import', 'github', '--workspace', workspaceId, '--repo', REPO, '--file', file, '--wait']);
  if (imported.code !== 0) throw new Error(`preload import failed: ${imported.stderr}`);
  const connectionId = String((await cli(['connect', 'github', '--workspace', workspaceId, '--repo', REPO, '--token', TOKEN, '--base-url', github.url, '--webhook-secret', SECRET, '--no-verify'])).json.id);
  // Ids for contents / findsimilar / related, from a first search.
  const headers = { authorization: `Bearer ${key}`, 'x-workspace-id': workspaceId, 'content-type': 'application/json' };
  const seed = (await fetch(`${server.url}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ query: 'fix', limit: 50, mode: 'fast' }) }).then((r) => r.json())) as { data: { id: string }[] };
  const ids = seed.data.map((d) => d.id);
  if (ids.length === 0) throw new Error('no items to query after the preload');
  const queries = preloaded.slice(0, 200).map((o) => String((o as { title?: string; commit?: { message?: string } }).title ?? (o as { commit?: { message?: string } }).commit?.message ?? 'fix').split('\n')[0]!.slice(0, 80));

  let n = 0;
  const pick = <T>(list: readonly T[]) => list[n % list.length]!;
  const mix: { op: string; weight: number; body: () => unknown; path: string }[] = [
    { op: 'search fast', weight: 45, path: '/v1/search', body: () => ({ query: pick(queries), mode: 'fast', limit: 10 }) },
    { op: 'search balanced', weight: 20, path: '/v1/search', body: () => ({ query: pick(queries), mode: 'balanced', limit: 10 }) },
    { op: 'contents', weight: 15, path: '/v1/contents', body: () => ({ ids: [pick(ids), ids[(n + 7) % ids.length]] }) },
    { op: 'findsimilar', weight: 10, path: '/v1/findsimilar', body: () => ({ id: pick(ids), limit: 5 }) },
    { op: 'related', weight: 10, path: '/v1/related', body: () => ({ id: pick(ids), depth: 1 }) },
  ];
  const cumulative = mix.map((m, i) => mix.slice(0, i + 1).reduce((s, x) => s + x.weight, 0));
  const total = cumulative.at(-1)!;

  interface Sample { op: string; ms: number; ok: boolean; at: number }
  const samples: Sample[] = [];
  const errors: Record<string, number> = {};
  let inFlight = 0;
  let maxInFlight = 0;
  const fire = async () => {
    n++;
    const m = mix[cumulative.findIndex((c) => (n * 37) % total < c)]!;
    const started = performance.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let ok = false;
    try {
      const res = await fetch(`${server.url}${m.path}`, { method: 'POST', headers, body: JSON.stringify(m.body()), signal: AbortSignal.timeout(60_000) });
      await res.arrayBuffer();
      ok = res.ok;
      if (!ok) errors[`${m.op} ${res.status}`] = (errors[`${m.op} ${res.status}`] ?? 0) + 1;
    } catch (err) {
      errors[`${m.op} ${(err as Error).name}`] = (errors[`${m.op} ${(err as Error).name}`] ?? 0) + 1;
    } finally {
      inFlight--;
    }
    samples.push({ op: m.op, ms: performance.now() - started, ok, at: Date.now() });
  };

  // Ingestion: the backfill, and a steady stream of webhooks each opening a new issue.
  await cli(['backfill', '--connection', connectionId, '--no-wait']);
  let hooks = 0;
  let hookErrors = 0;
  const hook = async () => {
    const number = 900_000 + hooks++;
    const issue = {
      number, title: `Soak issue ${number}: ${pick(queries)}`, body: `Reported during the soak. ${pick(queries)}`, state: 'open',
      html_url: `https://github.com/${REPO}/issues/${number}`, user: { login: 'soak-bot' }, created_at: new Date().toISOString(), updated_at: new Date().toISOString(), labels: [],
    };
    const res = await deliverWebhook(`${server.url}/webhooks/github`, { event: 'issues', deliveryId: randomUUID(), payload: { action: 'opened', issue, repository: { full_name: REPO } }, secret: SECRET }).catch(() => ({ status: 0, body: '' }));
    if (res.status !== 200) hookErrors++;
  };

  const started = Date.now();
  const endAt = started + minutes * 60_000;
  const windows: { t: number; requests: number; errors: number; p50: number; p99: number; rssMb: number; items: number; hooks: number; ingesting: boolean; load1: number }[] = [];
  const itemCount = async () => {
    const s = await adminGet<{ connections: { streams: { items: number }[] }[] }>(server, token, '/admin/status').catch(() => null);
    return s ? s.connections.flatMap((c) => c.streams).reduce((a, x) => a + x.items, 0) : -1;
  };
  const requestTimer = setInterval(() => void fire(), 1000 / rate);
  let hookTimer = hooksPerSecond > 0 ? setInterval(() => void hook(), 1000 / hooksPerSecond) : null;
  const ingestEndAt = started + ingestMinutes * 60_000;
  const stopIngestion = setTimeout(() => {
    if (hookTimer) clearInterval(hookTimer);
    hookTimer = null;
  }, ingestMinutes * 60_000);
  let windowStart = started;
  console.error(`soak: ${minutes} min at ${rate} req/s, ${hooksPerSecond} webhook/s, backfill of ${backfilled.length} objects; preloaded ${preloaded.length}`);
  while (Date.now() < endAt) {
    await new Promise((r) => setTimeout(r, Math.min(windowMs, endAt - Date.now())));
    const inWindow = samples.filter((s) => s.at >= windowStart);
    const sorted = inWindow.map((s) => s.ms).sort((a, b) => a - b);
    const w = { t: Math.round((Date.now() - started) / 1000), requests: inWindow.length, errors: inWindow.filter((s) => !s.ok).length, p50: round(pct(sorted, 50)), p99: round(pct(sorted, 99)), rssMb: rssMb(), items: await itemCount(), hooks, ingesting: windowStart < ingestEndAt, load1: round(loadavg()[0]!) };
    windows.push(w);
    console.error(JSON.stringify(w));
    windowStart = Date.now();
  }
  clearInterval(requestTimer);
  clearTimeout(stopIngestion);
  if (hookTimer) clearInterval(hookTimer);
  await waitFor('requests in flight to finish', async () => inFlight === 0, 120_000, 100);

  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const byOp = Object.fromEntries(mix.map((m) => {
    const own = samples.filter((s) => s.op === m.op).map((s) => s.ms).sort((a, b) => a - b);
    return [m.op, { requests: own.length, p50: round(pct(own, 50)), p99: round(pct(own, 99)) }];
  }));
  const firstRss = windows[0]?.rssMb ?? 0;
  // After ingestion stopped: the first window wholly without it, to the last.
  const quiet = windows.filter((w) => !w.ingesting).map((w) => w.rssMb);
  const later = quiet.length > 0 ? quiet : windows.slice(Math.floor(windows.length / 2)).map((w) => w.rssMb);
  const summary = {
    minutes, ratePerSecond: rate, webhooksPerSecond: hooksPerSecond, requests: samples.length, errors: samples.filter((s) => !s.ok).length, errorKinds: errors,
    webhooks: hooks, webhookErrors: hookErrors, maxInFlight,
    p50: round(pct(sorted, 50)), p95: round(pct(sorted, 95)), p99: round(pct(sorted, 99)), max: round(sorted.at(-1) ?? 0), byOp,
    rssMb: { first: firstRss, last: windows.at(-1)?.rssMb ?? 0, max: Math.max(...windows.map((w) => w.rssMb)), quietFirst: later[0] ?? 0, quietMin: Math.min(...later), quietMax: Math.max(...later) },
    githubRequests: github.state.requests, githubRateLimited: github.state.rateLimited,
    loadAverage: loadavg().map(round),
  };
  console.log(JSON.stringify({ summary, windows }, null, 2));
  if (values.out) {
    const lines = [
      `# Soak (${minutes} min)`,
      '',
      `\`npm run bench -- soak --minutes ${minutes} --ingest-minutes ${ingestMinutes} --rate ${rate} --hooks-per-second ${hooksPerSecond} --preload ${preload} --backfill ${backfillCount}\`, ${new Date().toISOString().slice(0, 10)}: the embedded default`,
      `(\`npm start\` on a temp data dir, PGlite, in-process queue, embeddings from the fake OpenAI-compatible server) at a steady`,
      `${rate} requests/s (search fast 45%, balanced 20%, contents 15%, findsimilar 10%, related 10%; open loop: a request`,
      `is sent every ${Math.round(1000 / rate)} ms whatever the others do) while ingestion runs: a backfill of ${backfilled.length} prettier objects through the`,
      `fake GitHub (rate-limited) and ${hooksPerSecond} signed webhook/s, each opening a new issue to index, for the first ${ingestMinutes} min;`,
      `then the same requests with no ingestion, so resident memory that keeps growing there is a leak, not new items. Load average at the end: ${summary.loadAverage.join(', ')}.`,
      '',
      '| figure | value |',
      '| --- | --- |',
      `| requests | ${summary.requests} |`,
      `| errors (non-2xx or no answer) | ${summary.errors}${summary.errors ? ` (${JSON.stringify(errors)})` : ''} |`,
      `| webhooks delivered / refused | ${hooks} / ${hookErrors} |`,
      `| latency p50 / p95 / p99 / max (client side, ms) | ${summary.p50} / ${summary.p95} / ${summary.p99} / ${summary.max} |`,
      `| server resident memory first / last / max (MB) | ${summary.rssMb.first} / ${summary.rssMb.last} / ${summary.rssMb.max} |`,
      `| resident memory with no ingestion: first window / min / max / last (MB) | ${summary.rssMb.quietFirst} / ${summary.rssMb.quietMin} / ${summary.rssMb.quietMax} / ${summary.rssMb.last} |`,
      '',
      '| operation | requests | p50 ms | p99 ms |',
      '| --- | --- | --- | --- |',
      ...Object.entries(byOp).map(([op, v]) => `| ${op} | ${v.requests} | ${v.p50} | ${v.p99} |`),
      '',
      `Per ${windowMs / 1000} s window (items: objects the backfill has synced so far; webhooks: issues delivered so far):`,
      '',
      '| t (s) | ingesting | requests | errors | p50 ms | p99 ms | RSS MB | items | webhooks | load 1m |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...windows.map((w) => `| ${w.t} | ${w.ingesting ? 'yes' : 'no'} | ${w.requests} | ${w.errors} | ${w.p50} | ${w.p99} | ${w.rssMb} | ${w.items} | ${w.hooks} | ${w.load1} |`),
      '',
    ];
    await writeFile(values.out, lines.join('\n'));
  }
} finally {
  server.child.kill('SIGTERM');
  await server.exited;
  await github.close();
  await openai.close();
  await rm(dataDir, { recursive: true, force: true });
}
