/**
 * `npm run eval -- --data ../shared/data/github-prettier [--modes fast,balanced,thorough]
 *   [--split all|dev|test] [--limit N] [--baseline-only] [--out bench/results]
 *   [--url URL --workspace ID --key KEY [--ablate-index DIR]] [--no-ablation] [--related-roots N]
 *   [--compare bench/results/eval-latest.scores.json]`
 *
 * Scores the lexical baseline (BM25 with the product tokenizer) and, unless `--baseline-only`, every
 * search mode of a fresh embedded Engram loaded through the public import path (or an already loaded
 * instance given by `--url/--workspace/--key`), then findsimilar and related, then the ablation (each
 * path and signal removed in turn, in-process on the evaluated index: the fresh instance's data dir once
 * it stopped, or `--ablate-index`, a copy of the loaded instance's data dir), and writes the report.
 * Every query by default; `--split dev` is what tuning may look at, `--split test` the held-out part.
 * Per-query scores are written beside the report; `--compare` pairs each system with itself in such a
 * file from an earlier run (did a change move the rankings?).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { tokenize } from '@engram/text';
import { ablatePaths } from './ablation.js';
import { lexicalBaseline } from './baseline.js';
import { loadAuditedLinks, loadDataset, pullRequestsByCommit, splitQueries, type CorpusItem, type Dataset, type Split } from './dataset.js';
import { scoreFindSimilar } from './findsimilar.js';
import { judgementOf } from './metrics.js';
import { scoreRelated } from './related.js';
import { writeReport, type EvalReport, type ScoresFile } from './report.js';
import { runSystem, type SystemRun } from './run.js';
import { findSimilarByUrl, importDataset, relatedByUrl, searchMode, startEmbedded, type EmbeddedEngram, type WorkspaceAccess } from './service.js';
import { defaultTokenize } from './tokenizer.js';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/github-prettier' },
    modes: { type: 'string', default: 'fast,balanced,thorough' },
    split: { type: 'string', default: 'all' },
    limit: { type: 'string' },
    'baseline-only': { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/results' },
    url: { type: 'string' },
    workspace: { type: 'string' },
    key: { type: 'string' },
    port: { type: 'string', default: '3999' },
    'related-roots': { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    'ablate-index': { type: 'string' },
    'no-ablation': { type: 'boolean', default: false },
    compare: { type: 'string' },
  },
});

if (!['dev', 'test', 'all'].includes(args.split)) throw new Error(`--split must be dev, test or all (got ${args.split})`);
const split = args.split as Split;
const repoRoot = process.cwd();
const dataDir = resolve(args.data);
const concurrency = Number(args.concurrency);
const log = (message: string): void => console.error(`[eval] ${message}`);

const dataset: Dataset = await loadDataset(dataDir);
const byCommit = pullRequestsByCommit(dataset.corpus, dataset.links);
const queries = splitQueries(dataset.queries, split).slice(0, args.limit === undefined ? undefined : Number(args.limit));
const judgements = new Map(queries.map((q) => [q.id, judgementOf(q, byCommit)]));
log(`${dataset.corpus.length} items, ${queries.length} ${split} queries`);

const time = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  const result = await work();
  log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
};

// The lexical baseline and its variants, all in memory.
const bm25 = lexicalBaseline(dataset.corpus, tokenize);
const bm25NoSquash = lexicalBaseline(dataset.corpus, tokenize, { withoutSquashCommits: true });
const baseline = await time('bm25', () => runSystem('BM25', bm25.search, queries, judgements));
const noSquash = await time('bm25 without squash commits', () => runSystem('BM25 w/o squash commits', bm25NoSquash.search, queries, judgements));
const titleOf = (item: CorpusItem): string => (item.type === 'pull_request' ? item.title : (item.commit.message.split('\n')[0] ?? ''));
const baselineVariants: SystemRun[] = [
  noSquash,
  await runSystem('BM25, stand-in tokenizer', lexicalBaseline(dataset.corpus, defaultTokenize).search, queries, judgements),
  await runSystem('BM25, titles only', lexicalBaseline(dataset.corpus, tokenize, { text: titleOf }).search, queries, judgements),
];
const findSimilar = [{ system: 'BM25 (item text as query)', scores: await time('bm25 findsimilar', () => scoreFindSimilar(dataset.similar, bm25.findSimilar)) }];

/** The report records the command, never the API key in it. */
function redactKey(argv: readonly string[]): string[] {
  return argv.map((arg, i) => (argv[i - 1] === '--key' ? '<api key>' : arg.replace(/^--key=.*/, '--key=<api key>')));
}

const report: EvalReport = {
  date: new Date(),
  command: `npm run eval -- ${redactKey(process.argv.slice(2)).join(' ')}`.trim(),
  dataDir: args.data,
  split,
  baseline,
  systems: [noSquash],
  ablations: [{ caption: 'Lexical baseline variants', reference: baseline, rows: baselineVariants }],
  findSimilar,
  related: [],
  ...(args.compare ? { previous: { file: args.compare, ...(JSON.parse(await readFile(resolve(args.compare), 'utf8')) as ScoresFile) } } : {}),
  notes: [
    'BM25: k1 1.2, b 0.75, over title + body (PR) or message (commit), tokenised by `packages/text/src` (camelCase/snake splitting, Porter stemming, stop words); PRs and commits both indexed, as Engram does.',
    'The query sent is the release-note line (`query`), without its `context`.',
  ],
};

async function connect(): Promise<{ access: WorkspaceAccess; engram?: EmbeddedEngram; indexDir?: string }> {
  if (args.url && args.workspace && args.key) return { access: { url: args.url, workspaceId: args.workspace, key: args.key }, indexDir: args['ablate-index'] };
  const indexDir = await mkdtemp(join(tmpdir(), 'engram-eval-'));
  const engram = await startEmbedded({ repoRoot, dataDir: indexDir, port: Number(args.port), adminToken: randomBytes(24).toString('hex') });
  try {
    const { imported, ...access } = await time('import', () => importDataset(engram, repoRoot, join(dataDir, 'corpus.json')));
    log(`imported: ${JSON.stringify(imported)}`);
    return { access, engram, indexDir };
  } catch (error) {
    await engram.stop();
    throw error;
  }
}

if (!args['baseline-only']) {
  const { access, engram, indexDir } = await connect();
  try {
    const urls = new Map(dataset.corpus.map((item) => [item.id, item.html_url]));
    const urlOf = (id: string): string | undefined => urls.get(id);
    for (const mode of args.modes.split(',').filter(Boolean)) {
      report.systems.push(await time(`mode ${mode}`, () => runSystem(`engram ${mode}`, searchMode(access, mode), queries, judgements, { deepCall: true })));
    }
    report.findSimilar.push({ system: 'engram', scores: await time('findsimilar', () => scoreFindSimilar(dataset.similar, findSimilarByUrl(access, urlOf), { concurrency })) });
    const maxRoots = args['related-roots'] === undefined ? undefined : Number(args['related-roots']);
    const corpusIds = new Set(dataset.corpus.map((item) => item.id));
    const audited = await loadAuditedLinks();
    report.related.push({ system: 'engram', scores: await time('related', () => scoreRelated(dataset.links, corpusIds, relatedByUrl(access, urlOf), { concurrency, maxRoots, audited })) });
  } finally {
    await engram?.stop();
  }
  if (indexDir && !args['no-ablation']) {
    report.ablations.push(await time('ablation', () => ablatePaths(resolve(indexDir), queries, judgements, access.workspaceId)));
  }
}

for (const path of await writeReport(resolve(args.out), report)) log(`wrote ${path}`);
