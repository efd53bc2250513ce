/**
 * `npm run bench -- vector-graph [--size 100000] [--queries 300] [--data ../shared/data/github-prettier]`
 *
 * The vector mirror's approximate graph against its exact scans, in one process: the scale benchmark's
 * generated corpus (seed 1) embedded by the fake OpenAI server's bag of words (512 dims, as the scale runs
 * embed it), one chunk an item, into two memory indexes, one that builds its graph at any size (the
 * server's mirror waits for GRAPH_MIN_ROWS chunks, so a smaller corpus is measured too) and one that never
 * builds it; then the dataset's release-note queries, one at a time, as the vector path asks
 * (the 200 best items). Prints the graph's build time, each side's ms a search (mean, p50, p95) and CPU
 * of this process per search, and how many of the exact scan's items the graph finds (at 10 and 200) with
 * their similarities unchanged.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bagOfWordsVector } from '@engram/test/fakes';
import { createMemoryIndex, type VectorRecord } from '@engram/stores';
import { readFile } from 'node:fs/promises';
import { loadSource } from './scale/corpusFiles.js';
import { generateCorpus } from './scale/generate.js';
import { percentiles } from './scale/load.js';

const { values: args } = parseArgs({
  options: { size: { type: 'string', default: '100000' }, queries: { type: 'string', default: '300' }, data: { type: 'string', default: '../shared/data/github-prettier' } },
});
const size = Number(args.size);
const dims = 512;
const dataDir = resolve(args.data);
const corpus = generateCorpus(await loadSource(dataDir), { count: size, seed: 1 });
const records: VectorRecord[] = [];
for (const { items } of corpus.repos) {
  for (const item of items) {
    const text = item.type === 'pull_request' ? `${item.title}\n${item.body ?? ''}` : item.commit.message;
    records.push({ id: item.id, itemId: item.id, workspaceId: 'w', source: 'github', type: item.type, occurredAt: '2026-01-01T00:00:00Z', actorNames: [], vector: bagOfWordsVector(text, dims) });
  }
}
const queries = (JSON.parse(await readFile(join(dataDir, 'queries.json'), 'utf8')) as { query: string }[]).slice(0, Number(args.queries)).map((q) => bagOfWordsVector(q.query, dims));

const exact = createMemoryIndex({ graphMinRows: Number.POSITIVE_INFINITY });
const graph = createMemoryIndex({ graphMinRows: 1 });
for (let i = 0; i < records.length; i += 1_000) {
  exact.upsert(records.slice(i, i + 1_000));
  graph.upsert(records.slice(i, i + 1_000));
}
await exact.warm();
const buildStarted = performance.now();
await graph.warm();
const buildDeadline = Date.now() + 15 * 60_000;
while (!graph.graphReady('w')) {
  if (Date.now() > buildDeadline) throw new Error(`the graph of ${records.length} chunks was not ready after 15 minutes`);
  await new Promise((r) => setTimeout(r, 20));
}
const buildS = (performance.now() - buildStarted) / 1000;

async function run(index: typeof exact) {
  const ms: number[] = [];
  const hits = [];
  const cpu = process.cpuUsage();
  for (const q of queries) {
    const started = performance.now();
    hits.push(await index.search(q, { workspaceId: 'w' }, 200));
    ms.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  const { mean, p50, p95 } = percentiles(ms);
  return { hits, mean, p50, p95, cpuMsPerSearch: Math.round(((used.user + used.system) / 1000 / ms.length) * 100) / 100 };
}
// Each side twice, alternated; the second pass of each is reported (caches warm, the scan thread started).
await run(exact);
await run(graph);
const a = await run(exact);
const b = await run(graph);
let found10 = 0;
let found200 = 0;
let total200 = 0;
let sameScore = 0;
let compared = 0;
for (let i = 0; i < queries.length; i++) {
  const truth = a.hits[i]!;
  const got = new Map(b.hits[i]!.map((h) => [h.itemId, h.similarity]));
  const top10 = truth.slice(0, 10);
  found10 += top10.filter((h) => got.has(h.itemId)).length / Math.max(1, top10.length);
  found200 += truth.filter((h) => got.has(h.itemId)).length;
  total200 += truth.length;
  for (const h of truth) {
    const s = got.get(h.itemId);
    if (s === undefined) continue;
    compared++;
    if (Math.abs(s - h.similarity) < 1e-6) sameScore++;
  }
}
console.log(
  JSON.stringify({
    size,
    chunks: records.length,
    queries: queries.length,
    graphBuildS: Math.round(buildS * 10) / 10,
    exact: { mean: a.mean, p50: a.p50, p95: a.p95, cpuMsPerSearch: a.cpuMsPerSearch },
    graph: { mean: b.mean, p50: b.p50, p95: b.p95, cpuMsPerSearch: b.cpuMsPerSearch },
    recallAt10: Math.round((found10 / queries.length) * 1000) / 1000,
    recallAt200: Math.round((found200 / Math.max(1, total200)) * 1000) / 1000,
    sameSimilarity: Math.round((sameScore / Math.max(1, compared)) * 1000) / 1000,
    load: loadavg().map((x) => x.toFixed(2)).join(' '),
  }),
);
process.exit(0);
