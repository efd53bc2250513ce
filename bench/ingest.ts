// Ingestion throughput of the indexer: N real prettier PRs and commits (../shared/data/github-prettier),
// normalised by the GitHub connector, staged, then indexed in-process on PGlite the way the worker does it
// (as many `index.event` calls in flight as the job catalog allows). Each variant gets a fresh database.
// Variants: the fake OpenAI-compatible server (pipeline cost; in its own process, as a remote provider
// would be) and the bundled offline encoder, each
// with batches of 1 (one event per transaction: the old per-item path) and of the default size. The
// encoder's own throughput on the same texts is measured in the same run, so the ratio is fair.
// Run: npx tsx bench/ingest.ts [--data <dir>] [--n 600] [--offline-n 300] [--skip-offline] [--batch 32] [--dims 1536]
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { normalizeGitHubObject } from '@engram/connectors';
import type { SourceEvent } from '@engram/contracts';
import {
  createIndexer,
  createOfflineEmbedder,
  createOpenAIEmbedder,
  DEFAULT_INDEX_BATCH_SIZE,
  embeddingChunks,
  type EmbeddingProvider,
} from '@engram/indexer';
import { jobCatalog } from '@engram/queue';
import { createPgVectorStore, stageEvents, type Db, type Queryable } from '@engram/stores';
import { openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { startFakeOpenAIProcess } from './scale/fakeOpenAIProcess.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: new URL('../../shared/data/github-prettier/', import.meta.url).pathname },
    n: { type: 'string', default: '600' },
    'offline-n': { type: 'string', default: '300' },
    'skip-offline': { type: 'boolean', default: false },
    /** Only the batched variant (for profiling: `node --cpu-prof --import tsx bench/ingest.ts --skip-single --skip-offline`). */
    'skip-single': { type: 'boolean', default: false },
    /** Prints where the batched run's database time goes, statement by statement. */
    statements: { type: 'boolean', default: false },
    dims: { type: 'string', default: '1536' },
    batch: { type: 'string', default: String(DEFAULT_INDEX_BATCH_SIZE) },
  },
});
const DATA = values.data.endsWith('/') ? values.data : `${values.data}/`;
if (!existsSync(`${DATA}corpus.json`)) {
  console.log(`skipped: the prettier dataset is not at ${DATA}`);
  process.exit(0);
}
const n = Number(values.n);
const offlineN = Number(values['offline-n']);
const batchSize = Number(values.batch);

interface CorpusObject { id: string; type: string }
const corpus = (JSON.parse(readFileSync(`${DATA}corpus.json`, 'utf8')) as CorpusObject[]).filter((o) => o.type === 'pull_request' || o.type === 'commit');
// Interleave PRs and commits from the newest end, so links between them exist inside the sample.
const sample = (count: number): SourceEvent[] => corpus.slice(0, count).map((o) => normalizeGitHubObject(o, 'prettier/prettier'));

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const lines: string[] = [];
const out = (line = '') => {
  lines.push(line);
  console.log(line);
};

/** Stages `events` into a fresh PGlite database and indexes them with `concurrency` calls in flight. */
async function run(embedder: EmbeddingProvider, events: SourceEvent[], batch: number, timing?: StatementTiming): Promise<{ rate: number; ms: number; load: string; perCpuSecond: number }> {
  const opened = await openTestDatabase('pglite://memory');
  const db = timing ? timed(opened, timing) : opened;
  const vectors = await createPgVectorStore(db);
  await vectors.ensureCollection({ model: embedder.model, dimensions: embedder.dimensions });
  const ws = await testWorkspace(db, 'bench');
  const { ids } = await stageEvents(db, { workspaceId: ws, events });
  const indexer = createIndexer({ db, vectors, embedder, batchSize: batch });
  const concurrency = jobCatalog['index.event'].concurrency;
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  let next = 0;
  let failed = 0;
  let firstFailure: unknown;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        const outcome = await indexer.indexEvent(id).catch((err: unknown) => {
          firstFailure ??= err;
          return null;
        });
        if (outcome?.status !== 'indexed') {
          firstFailure ??= new Error(`event ${id}: ${outcome?.status ?? 'failed'}`);
          failed++;
        }
      }
    }),
  );
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const items = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM items WHERE workspace_id = $1', [ws])).rows[0]?.n ?? 0);
  await db.close();
  if (failed > 0 || items !== ids.length) throw new Error(`${failed} events not indexed, ${items} items for ${ids.length} events`, { cause: firstFailure });
  return { rate: ids.length / (ms / 1000), ms, load: load(), perCpuSecond: ids.length / cpuSeconds };
}

/** Wall time and calls per statement (its first line, numbers and whitespace squeezed). */
type StatementTiming = Map<string, { ms: number; calls: number }>;

function timed(db: Db, timing: StatementTiming): Db {
  const wrap = (target: Queryable): Queryable['query'] =>
    async <R>(sql: string, params?: readonly unknown[]) => {
      const started = performance.now();
      try {
        return await target.query<R>(sql, params);
      } finally {
        const key = sql.replace(/\s+/g, ' ').trim().slice(0, 90);
        const entry = timing.get(key) ?? timing.set(key, { ms: 0, calls: 0 }).get(key)!;
        entry.ms += performance.now() - started;
        entry.calls++;
      }
    };
  return { ...db, query: wrap(db), transaction: (fn) => db.transaction((tx) => fn({ ...tx, query: wrap(tx) })) };
}

function printTiming(timing: StatementTiming, wallMs: number): void {
  const total = [...timing.values()].reduce((sum, t) => sum + t.ms, 0);
  out();
  out(`Database time by statement (batched run, wall ${(wallMs / 1000).toFixed(1)} s; statements overlap only across awaits, PGlite runs one at a time): ${(total / 1000).toFixed(1)} s`);
  out();
  out('| statement | calls | s | share of wall |');
  out('| --- | ---: | ---: | ---: |');
  for (const [sql, t] of [...timing].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) {
    out(`| \`${sql.replace(/\|/g, '\\|')}\` | ${t.calls} | ${(t.ms / 1000).toFixed(2)} | ${((100 * t.ms) / wallMs).toFixed(1)}% |`);
  }
}

async function encoderAlone(embedder: EmbeddingProvider, events: SourceEvent[]): Promise<{ itemsPerSec: number; textsPerSec: number }> {
  const texts = events.map((e) => embeddingChunks({ title: e.title, body: e.body }));
  const flat = texts.flat();
  const started = performance.now();
  for (let i = 0; i < flat.length; i += 256) await embedder.embed(flat.slice(i, i + 256));
  const s = (performance.now() - started) / 1000;
  return { itemsPerSec: events.length / s, textsPerSec: flat.length / s };
}

out(`# Ingestion throughput (bench/ingest.ts)`);
out();
out(`${new Date().toISOString()}, node ${process.version}, load average at start ${load()}; index.event concurrency ${jobCatalog['index.event'].concurrency}`);
out();
out('| embedder | items | batch 1 (items/s) | batch ' + batchSize + ' (items/s) | ratio | load avg (1/5/15) |');
out('| --- | --- | --- | --- | --- | --- |');

// The fake provider runs in its own process, as a real one would: its work is not on the indexer's event loop.
const fake = await startFakeOpenAIProcess({ apiKey: 'bench', dimensions: Number(values.dims) });
try {
  const embedder = createOpenAIEmbedder({ apiKey: 'bench', baseURL: fake.url, model: 'text-embedding-3-small', dimensions: Number(values.dims) });
  const events = sample(n);
  await run(embedder, events.slice(0, 50), batchSize); // warm-up (JIT, PGlite start)
  const one = values['skip-single'] ? null : await run(embedder, events, 1);
  const timing: StatementTiming | undefined = values.statements ? new Map() : undefined;
  const many = await run(embedder, events, batchSize, timing);
  if (!one) out(`| fake OpenAI (${values.dims} dims) | ${events.length} | - | ${many.rate.toFixed(1)} | - | ${many.load} |`);
  else out(`| fake OpenAI (${values.dims} dims) | ${events.length} | ${one.rate.toFixed(1)} | ${many.rate.toFixed(1)} | ${(many.rate / one.rate).toFixed(2)}x | ${many.load} |`);
  out();
  out(`Batched run: ${many.perCpuSecond.toFixed(1)} items per CPU-second of this process (the indexer and PGlite; the fake provider runs in its own), a figure less sensitive to other load than items/s.`);
  if (timing) printTiming(timing, many.ms);
} finally {
  await fake.close();
}

if (!values['skip-offline']) {
  const embedder = await createOfflineEmbedder();
  try {
    const events = sample(offlineN);
    await embedder.embed(['warm up the model']);
    const alone = await encoderAlone(embedder, events);
    const one = await run(embedder, events, 1);
    const many = await run(embedder, events, batchSize);
    out(`| offline encoder (use-lite-512) | ${events.length} | ${one.rate.toFixed(1)} | ${many.rate.toFixed(1)} | ${(many.rate / one.rate).toFixed(2)}x | ${many.load} |`);
    out();
    out(
      `Encoder alone on the same items' chunks: ${alone.itemsPerSec.toFixed(1)} items/s (${alone.textsPerSec.toFixed(1)} texts/s); ` +
        `the indexer reaches ${((many.rate / alone.itemsPerSec) * 100).toFixed(0)}% of it with batch ${batchSize} and ${((one.rate / alone.itemsPerSec) * 100).toFixed(0)}% with batch 1.`,
    );
  } finally {
    await embedder.close();
  }
}
out();
out(`Load average at the end: ${load()}.`);
