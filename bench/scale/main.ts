/**
 * `npm run bench -- scale [--sizes 10000,30000,100000] [--embedder offline|fast|both]
 *   [--deployment embedded|distributed|both] [--duration 30] [--extra N] [--max-during 900]
 *   [--out bench/results] [--name scale]
 *   [--seed 1] [--data ../shared/data/github-prettier] [--port 4100]
 *   [--database-url postgres://...] [--redis-url redis://...] [--keep-index <dir>]`
 *
 * Generates a corpus per size from the prettier dataset, then for each deployment, embedder and size
 * starts a fresh Engram, imports it through `engram import github --wait` and measures ingestion,
 * search latency at 1 and 16 clients per mode, search during an import and a re-cluster, memory and
 * disk. `--duration` is each idle load phase, s; `--extra` the items of the import that runs under load
 * (default 2% of the size, 200 to 2,000); `--max-during` caps that phase, s. Writes `<out>/<name>.json`, `.md` and `.svg` after every phase. The distributed deployment
 * needs server PostgreSQL with pgvector (`--database-url`, default DATABASE_URL; a scratch database is
 * created on it and dropped) and Redis (`--redis-url`, default REDIS_URL). `--keep-index` keeps each embedded
 * run's data dir as `<dir>/<embedder>-<size>` (for `bench/search-latency.ts --index`).
 */
import { readFile, mkdir } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeOpenAIProcess, type FakeOpenAIProcess } from './fakeOpenAIProcess.js';
import { loadSource, writeCorpus, type CorpusManifest } from './corpusFiles.js';
import { stopAllDeployments, type DeploymentKind } from './deploy.js';
import type { SourceCommit, SourcePull } from './generate.js';
import { writeReport, type ScaleReport } from './report.js';
import { encoderThroughput, runScale, type EmbedderKind } from './run.js';

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: 'string', default: '10000,30000,100000' },
    embedder: { type: 'string', default: 'both' },
    deployment: { type: 'string', default: 'both' },
    duration: { type: 'string', default: '30' },
    extra: { type: 'string' },
    'max-during': { type: 'string', default: '900' },
    out: { type: 'string', default: 'bench/results' },
    name: { type: 'string', default: 'scale' },
    seed: { type: 'string', default: '1' },
    data: { type: 'string', default: '../shared/data/github-prettier' },
    port: { type: 'string', default: '4100' },
    'database-url': { type: 'string', default: process.env.DATABASE_URL },
    'redis-url': { type: 'string', default: process.env.REDIS_URL },
    'keep-index': { type: 'string' },
  },
});

const choice = <T extends string>(value: string, both: T[], flag: string): T[] => {
  if (value === 'both') return both;
  if (!both.includes(value as T)) throw new Error(`--${flag} must be ${both.join(', ')} or both (got ${value})`);
  return [value as T];
};
const sizes = args.sizes.split(',').map((s) => Number(s.trim()));
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes must be positive integers (got ${args.sizes})`);
const embedders = choice<EmbedderKind>(args.embedder, ['offline', 'fast'], 'embedder');
const deployments = choice<DeploymentKind>(args.deployment, ['embedded', 'distributed'], 'deployment');
const durationS = Number(args.duration);
if (!(durationS > 0)) throw new Error(`--duration must be a positive number of seconds (got ${args.duration})`);
const seed = Number(args.seed);
if (deployments.includes('distributed') && (!args['database-url']?.startsWith('postgres') || !args['redis-url'])) {
  throw new Error('--deployment distributed needs --database-url postgres://... and --redis-url redis://... (or DATABASE_URL and REDIS_URL)');
}

const repoRoot = process.cwd();
const dataDir = resolve(args.data);
const outDir = resolve(args.out);
const log = (message: string): void => console.error(`[scale ${new Date().toISOString().slice(11, 19)}] ${message}`);
await mkdir(outDir, { recursive: true });

const source = await loadSource(dataDir).catch((err: Error) => {
  throw new Error(`cannot read the dataset at ${dataDir} (--data): ${err.message}`);
});
const queries = (JSON.parse(await readFile(join(dataDir, 'queries.json'), 'utf8')) as { query: string }[]).map((q) => q.query);

const report: ScaleReport = {
  command: `npm run bench -- scale ${process.argv.slice(2).join(' ')}`.trim(),
  startedAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
  complete: false,
  machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, memoryBytes: totalmem() },
  options: { sizes, embedders, deployments, durationS, seed },
  corpora: [],
  runs: [],
};
const save = () => writeReport(report, outDir, args.name);

// One corpus per size, and a smaller one of recombined items (copy >= 1, another repository) for the
// import that runs under search load.
const corpusDir = join(tmpdir(), 'engram-scale-corpus');
const corpora = new Map<number, { corpus: CorpusManifest; extra: CorpusManifest }>();
for (const size of sizes) {
  log(`generating ${size} items (seed ${seed})`);
  const corpus = await writeCorpus(source, { count: size, seed }, join(corpusDir, `${size}-${seed}`));
  const extraCount = args.extra ? Number(args.extra) : Math.min(2_000, Math.max(200, Math.round(size * 0.02)));
  const extra = await writeCorpus(source, { count: extraCount, seed: seed + 1_000, startCopy: 1, repos: ['scale-org/extra'] }, join(corpusDir, `${size}-${seed}-extra`));
  corpora.set(size, { corpus, extra });
  report.corpora.push({ ...corpus, files: corpus.files.map(({ repo, items, pulls, commits }) => ({ repo, items, pulls, commits })) });
}
await save();

// Ctrl-C or a kill stops the servers this run started (they run in their own process groups).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    void stopAllDeployments().finally(() => process.exit(130));
  });
}

let fake: FakeOpenAIProcess | undefined;
const apiKey = 'sk-scale-bench';
// In its own process: this one runs autocannon, whose busy loop would otherwise delay every embedding answer.
if (embedders.includes('fast')) fake = await startFakeOpenAIProcess({ apiKey, dimensions: 512 });
const embedderEnv = (kind: EmbedderKind): Record<string, string> =>
  kind === 'fast'
    ? { EMBEDDING_PROVIDER: 'openai', EMBEDDING_BASE_URL: fake!.url, EMBEDDING_API_KEY: apiKey, EMBEDDING_DIMENSIONS: '512' }
    : { EMBEDDING_PROVIDER: 'offline' };

try {
  for (const deployment of deployments) {
    for (const embedder of embedders) {
      for (const size of sizes) {
        const { corpus, extra } = corpora.get(size)!;
        if (embedder === 'offline' && !report.encoder) {
          // The encoder alone, on texts of this corpus, before any server runs.
          const items = JSON.parse(await readFile(corpus.files[0]!.file, 'utf8')) as (SourcePull | SourceCommit)[];
          log('offline encoder throughput');
          report.encoder = await encoderThroughput(items.slice(0, 1000));
          await save();
        }
        await runScale(
          {
            repoRoot, port: Number(args.port), durationS, ...(args['keep-index'] ? { keepIndex: resolve(args['keep-index']) } : {}), maxDuringS: Number(args['max-during']), queries, embedderEnv, log,
            stores: deployment === 'distributed' ? { databaseUrl: args['database-url']!, redisUrl: args['redis-url']! } : undefined,
            checkpoint: async (result) => {
              if (!report.runs.includes(result)) report.runs.push(result);
              await save();
            },
          },
          { deployment, embedder, size, corpus, extra },
        );
      }
    }
  }
  report.complete = true;
} finally {
  await save();
  await fake?.close();
  log(`report: ${join(outDir, `${args.name}.md`)}`);
}
