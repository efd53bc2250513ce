/**
 * `npx tsx bench/search-latency.ts --index <copy of an Engram data dir holding the dataset> [--mode fast|balanced]
 *   [--only lexical|vector|entity|cluster|actor] [--queries 80] [--workspace <id>] [--read memory|sql|both]
 *   [--concurrency 16] [--searches 400] [--settle 3] [--pages-out <file>] [--pages-against <file>] [--context]`
 *
 * In-process search latency on a full index: the first `--queries` dev queries (after 10 warm-up
 * queries), limit 10, through the search service as the API builds it (learned reranker for
 * `balanced`, the runtime's query embedder). Prints mean and p50 of the wall time and of every
 * `latency` field the service reports. `--only` runs one retrieval path, to see what each costs alone.
 * `--read both` runs the same queries through the first stage's SQL read model and its in-memory one,
 * alternating per query, and prints the ratio (same process, same load).
 * `--context` asks for the context and highlights, as the API's defaults do. `--concurrency N` then runs the queries again with N searches in flight (as N clients of one server
 * would) and prints searches per second and CPU time per search (user + system of this process: the
 * figure load on a shared machine moves least), over `--searches` searches. `--settle` is how long to wait
 * after opening, in seconds: the vector graph of a large index builds in the background (150 s or more at 100k). `--pages-out` writes every query's first page (ids in
 * order) and `--pages-against` compares this run's pages with such a file: before and after a change.
 * An index built with an OpenAI-compatible embedder needs the same `EMBEDDING_*` variables as its server.
 * PGlite has one owner: point it at a copy of a data dir that no server has open.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openFirstStageRuntime } from './runtime.js';
import { createLearnedReranker, createSearchService, PATH_NAMES, type PathName } from '@engram/search';
import { createSqlReadModel, listWorkspaces, openSearchReadModel, refreshPlannerStats } from '@engram/stores';
import { loadDataset, splitQueries } from './eval/dataset.js';

const { values: args } = parseArgs({
  options: {
    index: { type: 'string' },
    data: { type: 'string', default: '../shared/data/github-prettier' },
    mode: { type: 'string', default: 'fast' },
    only: { type: 'string' },
    queries: { type: 'string', default: '80' },
    workspace: { type: 'string' },
    read: { type: 'string', default: 'memory' },
    concurrency: { type: 'string' },
    searches: { type: 'string', default: '400' },
    settle: { type: 'string', default: '3' },
    context: { type: 'boolean', default: false },
    'pages-out': { type: 'string' },
    'pages-against': { type: 'string' },
  },
});
if (!args.index) throw new Error('--index <data dir> is required');
const mode = args.mode === 'balanced' ? 'balanced' : 'fast';
const only = args.only as PathName | undefined;
if (only && !PATH_NAMES.includes(only)) throw new Error(`--only must be one of ${PATH_NAMES.join(', ')}`);

const embeddingEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('EMBEDDING_')));
const runtime = await openFirstStageRuntime(resolve(args.index), 'search-latency', embeddingEnv);
try {
  const workspaceId = args.workspace ?? (await listWorkspaces(runtime.db))[0]!.id;
  // As the server does when it starts its jobs (PGlite runs no autovacuum).
  await refreshPlannerStats(runtime.db);
  const reads = args.read === 'both' ? ['sql', 'memory'] : [args.read === 'sql' ? 'sql' : 'memory'];
  const memory = openSearchReadModel(runtime.db, { memory: true });
  const loadStart = performance.now();
  if (reads.includes('memory') && !(await memory.loaded())) throw new Error('the in-memory read model did not load');
  console.log(`in-memory read model loaded in ${(performance.now() - loadStart).toFixed(0)} ms; rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
  const services = Object.fromEntries(
    reads.map((r) => [r, createSearchService({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.queryEmbedder, reranker: createLearnedReranker(), read: r === 'sql' ? createSqlReadModel(runtime.db) : memory })]),
  );
  const queries = splitQueries((await loadDataset(resolve(args.data))).queries, 'dev').slice(0, Number(args.queries));
  const options = only ? { disablePaths: PATH_NAMES.filter((p) => p !== only) } : {};
  const run = (read: string, query: string) => services[read]!.search(workspaceId, { query, limit: 10, offset: 0, mode, includeContext: args.context, includeHighlights: args.context }, options);
  // The vector mirror loads in the background when the store opens: let it finish, then warm up.
  await new Promise((done) => setTimeout(done, Number(args.settle) * 1000));
  for (const read of reads) for (const q of queries.slice(0, 10)) await run(read, q.query);
  const samples: Record<string, Record<string, number[]>> = Object.fromEntries(reads.map((r) => [r, { wall: [] }]));
  const same: boolean[] = [];
  const pages: Record<string, string[]> = {};
  for (const [n, q] of queries.entries()) {
    const ids: string[][] = [];
    // Alternate which read model goes first: the first pays the query's embedding (then cached).
    for (const read of n % 2 ? [...reads].reverse() : reads) {
      const started = performance.now();
      const outcome = await run(read, q.query);
      samples[read]!.wall!.push(performance.now() - started);
      for (const [k, v] of Object.entries(outcome.latency)) if (typeof v === 'number') (samples[read]![k] ??= []).push(v);
      ids.push(outcome.results.map((r) => r.id));
    }
    pages[q.query] = ids[0]!;
    if (ids.length === 2) same.push(JSON.stringify(ids[0]) === JSON.stringify(ids[1]));
    // (Each model's page is compared as a set of ids in order; which ran first does not matter.)
  }
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${queries.length} dev queries, mode ${mode}${only ? `, ${only} path only` : ''}, limit 10 (ms); load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`| field | ${reads.map((r) => `${r} mean | ${r} p50`).join(' | ')}${reads.length === 2 ? ' | p50 ratio sql/memory' : ''} |`);
  console.log(`| --- | ${reads.map(() => '--- | ---').join(' | ')}${reads.length === 2 ? ' | ---' : ''} |`);
  for (const k of Object.keys(samples[reads[0]!]!)) {
    const cols = reads.map((r) => samples[r]![k] ?? [0]);
    if (cols.every((xs) => mean(xs) === 0)) continue;
    const ratio = reads.length === 2 ? ` | ${(p50(cols[0]!) / Math.max(0.01, p50(cols[1]!))).toFixed(2)}x` : '';
    console.log(`| ${k} | ${cols.map((xs) => `${mean(xs).toFixed(1)} | ${p50(xs).toFixed(1)}`).join(' | ')}${ratio} |`);
  }
  if (same.length) console.log(`same first page from both read models: ${same.filter(Boolean).length}/${same.length} queries`);
  if (args['pages-out']) writeFileSync(args['pages-out'], JSON.stringify({ mode, pages }, null, 1));
  if (args['pages-against']) {
    const before = (JSON.parse(readFileSync(args['pages-against'], 'utf8')) as { pages: Record<string, string[]> }).pages;
    const asked = Object.keys(pages).filter((query) => before[query]);
    const moved = asked.filter((query) => JSON.stringify(before[query]) !== JSON.stringify(pages[query]));
    console.log(`same first page as ${args['pages-against']}: ${asked.length - moved.length}/${asked.length} queries${moved.length ? `; moved: ${moved.slice(0, 5).join(' | ')}` : ''}`);
  }
  if (args.concurrency) {
    const inFlight = Number(args.concurrency);
    const read = reads[reads.length - 1]!;
    const rounds = Math.max(1, Math.ceil(Number(args.searches) / queries.length));
    const work = Array.from({ length: rounds }, () => queries).flat();
    let next = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < work.length) await run(read, work[next++]!.query);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    console.log(
      `${inFlight} in flight (${read}): ${work.length} searches in ${seconds.toFixed(1)} s = ${(work.length / seconds).toFixed(1)} searches/s; ` +
        `CPU ${((used.user + used.system) / 1000 / work.length).toFixed(1)} ms per search; load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`,
    );
  }
  console.log(`rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
} finally {
  await runtime.close();
}
