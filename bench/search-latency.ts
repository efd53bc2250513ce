/**
 * `npx tsx bench/search-latency.ts --index <copy of an Engram data dir holding the dataset> [--mode fast|balanced]
 *   [--only lexical|vector|entity|cluster|actor] [--queries 80] [--workspace <id>]`
 *
 * In-process search latency on a full index: the first `--queries` dev queries (after 10 warm-up
 * queries), limit 10, through the search service as the API builds it (learned reranker for
 * `balanced`, the runtime's query embedder). Prints mean and p50 of the wall time and of every
 * `latency` field the service reports. `--only` runs one retrieval path, to see what each costs alone.
 * PGlite has one owner: point it at a copy of a data dir that no server has open.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openFirstStageRuntime } from './runtime.js';
import { createSearchService, PATH_NAMES, type PathName } from '@engram/search';
import { createLearnedReranker } from '@engram/search';
import { listWorkspaces, refreshPlannerStats } from '@engram/stores';
import { loadDataset, splitQueries } from './eval/dataset.js';

const { values: args } = parseArgs({
  options: {
    index: { type: 'string' },
    data: { type: 'string', default: '../shared/data/github-prettier' },
    mode: { type: 'string', default: 'fast' },
    only: { type: 'string' },
    queries: { type: 'string', default: '80' },
    workspace: { type: 'string' },
  },
});
if (!args.index) throw new Error('--index <data dir> is required');
const mode = args.mode === 'balanced' ? 'balanced' : 'fast';
const only = args.only as PathName | undefined;
if (only && !PATH_NAMES.includes(only)) throw new Error(`--only must be one of ${PATH_NAMES.join(', ')}`);

const runtime = await openFirstStageRuntime(resolve(args.index), 'search-latency');
try {
  const workspaceId = args.workspace ?? (await listWorkspaces(runtime.db))[0]!.id;
  // As the server does when it starts its jobs (PGlite runs no autovacuum).
  await refreshPlannerStats(runtime.db);
  const service = createSearchService({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.queryEmbedder, reranker: createLearnedReranker() });
  const queries = splitQueries((await loadDataset(resolve(args.data))).queries, 'dev').slice(0, Number(args.queries));
  const options = only ? { disablePaths: PATH_NAMES.filter((p) => p !== only) } : {};
  const run = (query: string) => service.search(workspaceId, { query, limit: 10, offset: 0, mode, includeContext: false, includeHighlights: false }, options);
  // The vector mirror loads in the background when the store opens: let it finish, then warm up.
  await new Promise((done) => setTimeout(done, 3000));
  for (const q of queries.slice(0, 10)) await run(q.query);
  const samples: Record<string, number[]> = { wall: [] };
  for (const q of queries) {
    const started = performance.now();
    const outcome = await run(q.query);
    samples.wall!.push(performance.now() - started);
    for (const [k, v] of Object.entries(outcome.latency)) if (typeof v === 'number') (samples[k] ??= []).push(v);
  }
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${queries.length} dev queries, mode ${mode}${only ? `, ${only} path only` : ''}, limit 10 (ms)`);
  console.log('| field | mean | p50 |\n| --- | --- | --- |');
  for (const [k, xs] of Object.entries(samples)) if (mean(xs) > 0) console.log(`| ${k} | ${mean(xs).toFixed(1)} | ${p50(xs).toFixed(1)} |`);
} finally {
  await runtime.close();
}
