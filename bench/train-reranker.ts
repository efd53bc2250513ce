/**
 * `npx tsx bench/train-reranker.ts [--data ../shared/data/github-prettier] [--index /tmp/engram-reranker-index]
 *   [--folds 5] [--build-only] [--no-write] [--recollect] [--test] [--release-note-weight 2] [--options JSON]
 *   [--no-ablations]`
 *
 * Trains the learned reranker (`balanced`) on the DEV splits only, of both sets: the release-note lines
 * (`queries.json`, `splitQueries`) and the natural questions (`bench/eval/questions/`, `questionSplitOf`):
 * 1. builds once an index of the whole corpus in a persistent PGlite dir (the import path: staged
 *    events through the indexer jobs, then a recluster), reused by later runs;
 * 2. runs the search service over every dev query of both sets (`debugCandidates`) and keeps the top
 *    RERANK_DEPTH fused candidates with their relevance (a candidate is relevant when it is a judged PR
 *    or one of its commits);
 * 3. chooses hyperparameters by k-fold cross-validation over dev queries, trains on all of dev and
 *    writes `packages/search/src/rank/model.ts`;
 * 4. with `--test` only (once, at the end): scores fused vs reranked vs BM25 on the held-out test
 *    split and writes `bench/results/reranker.md`.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { importGitHubExport } from '@engram/connectors';
import { rebuildAreaModel, recluster } from '@engram/indexer';
import { startJobs, type Runtime } from '@engram/runtime';
import { openFirstStageRuntime } from './runtime.js';
import { crossValidate, trainReranker, type TrainingQuery, type TrainOptions } from '@engram/search';
import { createLearnedReranker } from '@engram/search';
import type { LtrModel } from '@engram/search';
import { createSearchService, RERANK_DEPTH } from '@engram/search';
import { tokenize } from '@engram/text';
import { createWorkspace, listWorkspaces } from '@engram/stores';
import { lexicalBaseline } from './eval/baseline.js';
import { datasetIdFromUrl, loadDataset, pullRequestsByCommit, splitQueries, type Query } from './eval/dataset.js';
import { asQuery, commitsByPullRequest, loadQuestions, splitQuestions } from './eval/questions/set.js';
import { bootstrapDifference, bootstrapMean, judgementOf, scoreQuery, type Judgement } from './eval/metrics.js';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/github-prettier' },
    index: { type: 'string', default: '/tmp/engram-reranker-index' },
    folds: { type: 'string', default: '5' },
    'build-only': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    test: { type: 'boolean', default: false },
    /** Run the dev queries through the service again instead of reusing the cached candidates. */
    recollect: { type: 'boolean', default: false },
    model: { type: 'string', default: 'packages/search/src/rank/model.ts' },
    /**
     * How many times a release-note line counts in training beside a natural question (TrainingQuery.weight).
     * Trained on both sets with equal weight, the questions pulled the model off the release-note lines
     * (dev, out of fold: 0.786 against 0.797 trained on the lines alone, which loses the questions: 0.579
     * against 0.629); at 3 the lines give 0.790 and the questions 0.627 (`bench/results/reranker-trials.md`,
     * "2026-11-25, issue 20").
     */
    'release-note-weight': { type: 'string', default: '3' },
    /** Cross-validate only these options (JSON) instead of the grid. */
    options: { type: 'string' },
    /** Skip the per-signal ablations (one cross-validation each). */
    'no-ablations': { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/results/reranker.md' },
  },
});
const log = (message: string): void => console.error(`[train-reranker] ${message}`);
const dataDir = resolve(args.data);
const indexDir = resolve(args.index);
const stateFile = join(indexDir, 'reranker-index.json');
const folds = Number(args.folds);

const WORKSPACE_NAME = 'reranker-training';

/**
 * Opens the persistent index, building it on first use. An interrupted build resumes: the staged
 * events still pending are enqueued again by `startJobs`, and the embedding cache keeps finished work.
 */
async function openIndex(): Promise<{ runtime: Runtime; workspaceId: string }> {
  const runtime = await openFirstStageRuntime(indexDir, 'train-reranker');
  if (existsSync(stateFile)) return { runtime, workspaceId: (JSON.parse(await readFile(stateFile, 'utf8')) as { workspaceId: string }).workspaceId };
  const started = performance.now();
  const jobs = await startJobs(runtime);
  let workspace = (await listWorkspaces(runtime.db)).find((w) => w.name === WORKSPACE_NAME);
  if (workspace) log(`resuming the build of ${workspace.id}`);
  else {
    workspace = await createWorkspace(runtime.db, WORKSPACE_NAME);
    const content = await readFile(join(dataDir, 'corpus.json'), 'utf8');
    const imported = await importGitHubExport({ db: runtime.db, queue: runtime.queue }, { workspaceId: workspace.id, repo: 'prettier/prettier', content });
    log(`staged ${imported.staged} events (${imported.invalid} invalid); indexing ...`);
  }
  const progress = setInterval(() => {
    void runtime.queue.depths().then((d) => log(`index.event: ${d['index.event'].completed} done, ${d['index.event'].waiting} waiting, ${d['index.event'].failed} failed`));
  }, 60_000);
  await runtime.queue.idle();
  clearInterval(progress);
  log(`recluster: ${JSON.stringify(await recluster(runtime.db, runtime.vectors, workspace.id))}`);
  log(`area model: ${JSON.stringify(await rebuildAreaModel(runtime.db, workspace.id))}`);
  await runtime.queue.idle();
  await jobs.stop();
  await writeFile(stateFile, JSON.stringify({ workspaceId: workspace.id, builtAt: new Date().toISOString(), seconds: Math.round((performance.now() - started) / 1000) }));
  log(`index built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return { runtime, workspaceId: workspace.id };
}

interface Collected {
  training: TrainingQuery[];
  /** Dataset ids of every fused candidate, best first (the `fast` ranking), and their Engram ids. */
  fusedIds: string[][];
  engramIds: string[][];
}

/** Runs the service over the queries and labels the top RERANK_DEPTH fused candidates of each. */
async function collect(runtime: Runtime, workspaceId: string, queries: readonly Query[], judgements: ReadonlyMap<string, Judgement>): Promise<Collected> {
  const service = createSearchService({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder });
  const urls = new Map((await runtime.db.query<{ id: string; url: string }>('SELECT id, url FROM items WHERE workspace_id = $1', [workspaceId])).rows.map((r) => [r.id, r.url]));
  const out: Collected = { training: [], fusedIds: [], engramIds: [] };
  for (const query of queries) {
    const request = { query: query.query, limit: 10, offset: 0, mode: 'fast' as const, includeContext: false, includeHighlights: false };
    const outcome = await service.search(workspaceId, request, { debugCandidates: true });
    const all = outcome.candidates ?? [];
    const judgement = judgements.get(query.id)!;
    const datasetIds = all.map((c) => datasetIdFromUrl(urls.get(c.id) ?? '') ?? c.id);
    const candidates = all.slice(0, RERANK_DEPTH);
    const relevance = datasetIds.slice(0, RERANK_DEPTH).map((id) => judgement.targets.find((t) => t.ids.has(id))?.grade ?? 0);
    out.training.push({ query: query.query, candidates, relevance });
    out.fusedIds.push(datasetIds);
    out.engramIds.push(all.map((c) => c.id));
  }
  return out;
}

const GRID: Partial<TrainOptions>[] = [
  { trees: 0, l2: 0.001 },
  { trees: 0, l2: 0.01 },
  { trees: 0, l2: 0.1 },
  { trees: 0, l2: 0.001, lambda: true },
  { trees: 0, l2: 0.01, lambda: true },
  { trees: 0, l2: 0.1, lambda: true },
  { trees: 30, depth: 2, minLeaf: 30 },
  { trees: 60, depth: 3, minLeaf: 20 },
  { trees: 100, depth: 3, minLeaf: 40, shrinkage: 0.05 },
];

/** Candidate signals whose worth the report measures by removing them. */
const SIGNAL_ABLATIONS = ['releaseNote', 'areaTitleLift', 'isBot', 'isMergedPr', 'docsShare', 'toolingShare'];

function withoutSignal(training: readonly TrainingQuery[], signal: string): TrainingQuery[] {
  return training.map((q) => ({ ...q, candidates: q.candidates.map((c) => ({ ...c, signals: { ...c.signals, [signal]: 0 } })) }));
}

const moduleText = (model: LtrModel): string =>
  [
    '// Generated by `npx tsx bench/train-reranker.ts` (trained on the dev splits of both sets only). Do not edit by hand.',
    "import type { LtrModel } from './ltrModel.js';",
    '',
    `export const DEFAULT_LTR_MODEL: LtrModel = ${JSON.stringify(model, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(6)) : v))};`,
    '',
  ].join('\n');

/** The ranking a reranker gives: its top RERANK_DEPTH in its order, then the rest in fused order. */
function rerankedIds(scores: readonly number[], fusedIds: readonly string[]): string[] {
  const head = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i).map((o) => fusedIds[o.i]!);
  return [...head, ...fusedIds.slice(scores.length)];
}

const f3 = (x: number): string => x.toFixed(3);

async function main(): Promise<void> {
  const dataset = await loadDataset(dataDir);
  const byCommit = pullRequestsByCommit(dataset.corpus, dataset.links);
  const { runtime, workspaceId } = await openIndex();
  try {
    if (args['build-only']) return;
    const releaseDev = splitQueries(dataset.queries, 'dev');
    const corpusIds = new Set(dataset.corpus.map((item) => item.id));
    const commitsOf = commitsByPullRequest(dataset.corpus, byCommit);
    const devQuestions = splitQuestions(await loadQuestions(), 'dev');
    const questionDev = devQuestions.map((q) => asQuery(q, corpusIds, commitsOf));
    const dev = [...releaseDev, ...questionDev];
    // The sets a dev query is reported in: both, its set, and for a question its kind too.
    const setsOf = (i: number): string[] => (i < releaseDev.length ? ['both', 'release notes'] : ['both', 'questions', `questions: ${devQuestions[i - releaseDev.length]!.kind}`]);
    const judge = (qs: readonly Query[]) => new Map(qs.map((q) => [q.id, judgementOf(q, byCommit)]));
    let started = performance.now();
    const cacheFile = join(indexDir, 'dev-candidates-both.json');
    const cachedData = existsSync(cacheFile) && !args.recollect ? (JSON.parse(await readFile(cacheFile, 'utf8')) as Collected) : null;
    const devData: Collected = cachedData && cachedData.training.length === dev.length ? cachedData : await collect(runtime, workspaceId, dev, judge(dev));
    await writeFile(cacheFile, JSON.stringify(devData));
    log(`collected ${dev.length} dev queries (${releaseDev.length} release notes, ${questionDev.length} questions) in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const releaseWeight = Number(args['release-note-weight']);
    const training = devData.training.map((q, i) => (i < releaseDev.length && releaseWeight !== 1 ? { ...q, weight: releaseWeight } : q));
    const grid: Partial<TrainOptions>[] = args.options ? [JSON.parse(args.options) as Partial<TrainOptions>] : GRID;
    const cv = grid.map((options) => ({ options, result: crossValidate(training, options, folds) }));
    for (const { options, result } of cv) log(`CV ${JSON.stringify(options)}: fused ${f3(result.fusedNdcg10)} -> reranked ${f3(result.rerankedNdcg10)}`);
    const best = cv.reduce((a, b) => (b.result.rerankedNdcg10 > a.result.rerankedNdcg10 ? b : a));
    // What single signals are worth: the chosen options cross-validated again with the signal removed.
    const signalAblations = args['no-ablations'] ? [] : SIGNAL_ABLATIONS.map((signal) => ({ signal, result: crossValidate(withoutSignal(training, signal), best.options, folds) }));
    for (const { signal, result } of signalAblations) log(`CV without ${signal}: ${f3(result.rerankedNdcg10)}`);
    // The same choice scored as the harness scores a full ranking (every dev query, BM25 alongside).
    const devJudgements = judge(dev);
    const bm25 = lexicalBaseline(dataset.corpus, tokenize);
    const devFullOf = new Map<string, Record<string, number[]>>();
    for (const [i, query] of dev.entries()) {
      const judgement = devJudgements.get(query.id)!;
      const bm25Ndcg = scoreQuery((await bm25.search(query.query, 100)).ids, judgement).ndcg10;
      const fusedNdcg = scoreQuery(devData.fusedIds[i]!, judgement).ndcg10;
      const rerankedNdcg = scoreQuery(rerankedIds(best.result.scores[i]!, devData.fusedIds[i]!), judgement).ndcg10;
      for (const set of setsOf(i)) {
        const devFull = devFullOf.get(set) ?? { 'BM25 baseline': [], 'fused (fast)': [], 'reranked (balanced, out of fold)': [] };
        devFullOf.set(set, devFull);
        devFull['BM25 baseline']!.push(bm25Ndcg);
        devFull['fused (fast)']!.push(fusedNdcg);
        devFull['reranked (balanced, out of fold)']!.push(rerankedNdcg);
      }
    }
    started = performance.now();
    const trained = trainReranker(training, best.options);
    const model: LtrModel = {
      ...trained,
      trainedOn: {
        data: 'github-prettier queries.json dev split (bench/eval/dataset.ts splitQueries) and bench/eval/questions dev split (questionSplitOf)',
        queries: dev.length,
        releaseNoteQueries: releaseDev.length,
        questions: questionDev.length,
        releaseNoteWeight: releaseWeight,
        depth: RERANK_DEPTH,
        options: best.options,
        cvFolds: folds,
        cvFusedNdcg10: Number(f3(best.result.fusedNdcg10)),
        cvRerankedNdcg10: Number(f3(best.result.rerankedNdcg10)),
      },
    };
    log(`trained in ${((performance.now() - started) / 1000).toFixed(1)} s: ${model.trees.length} trees`);
    if (!args['no-write']) await writeFile(resolve(args.model), moduleText(model));

    const lines = [
      '# Learned reranker (`balanced`)',
      '',
      `Command: \`npx tsx bench/train-reranker.ts${args.test ? ' --test' : ''}\` (index of the whole corpus built once in ${args.index}).`,
      `Features: ${model.features.length} (${model.featureVersion}); candidates reranked per query: ${RERANK_DEPTH}.`,
      '',
      `## Dev splits: ${folds}-fold cross-validation by query (${dev.length} queries: ${releaseDev.length} release-note lines, ${questionDev.length} natural questions; a release-note line weighs ${releaseWeight} in training)`,
      '',
      'nDCG@10 over each query\'s top fused candidates (queries with a relevant candidate among them).',
      '',
      '| options | fused | reranked |',
      '|---|---|---|',
      ...cv.map(({ options, result }) => `| \`${JSON.stringify(options)}\` | ${f3(result.fusedNdcg10)} | ${f3(result.rerankedNdcg10)} |`),
      '',
      `Chosen: \`${JSON.stringify(best.options)}\`; Platt calibration a=${f3(model.calibration.a)} b=${f3(model.calibration.b)} (fitted on out-of-fold scores).`,
      '',
      ...(signalAblations.length === 0
        ? ['Per-signal ablations skipped (`--no-ablations`).', '']
        : [
            'The chosen options cross-validated again without one signal (its feature reads 0 for every candidate):',
            '',
            '| without | reranked | change |',
            '|---|---|---|',
            ...signalAblations.map(({ signal, result }) => `| \`${signal}\` | ${f3(result.rerankedNdcg10)} | ${(result.rerankedNdcg10 - best.result.rerankedNdcg10 >= 0 ? '+' : '') + f3(result.rerankedNdcg10 - best.result.rerankedNdcg10)} |`),
            '',
          ]),
      `Full rankings of every dev query, scored as the evaluation harness scores them (chosen options, out-of-fold), over both sets and each:`,
      ...[...devFullOf].flatMap(([set, devFull]) => ['', `### ${set}`, '', ...comparison(devFull)]),
    ];
    if (args.test) lines.push('', ...(await heldOut(runtime, workspaceId, dataset, byCommit, model)));
    await writeFile(resolve(args.out), `${lines.join('\n')}\n`);
    log(`wrote ${args.out}`);
  } finally {
    await runtime.close();
  }
}

/** Once, at the end: the held-out test split, full rankings scored as the evaluation harness does. */
async function heldOut(runtime: Runtime, workspaceId: string, dataset: Awaited<ReturnType<typeof loadDataset>>, byCommit: ReturnType<typeof pullRequestsByCommit>, model: LtrModel): Promise<string[]> {
  const test = splitQueries(dataset.queries, 'test');
  const judgements = new Map(test.map((q) => [q.id, judgementOf(q, byCommit)]));
  const data = await collect(runtime, workspaceId, test, judgements);
  const reranker = createLearnedReranker(model);
  const bm25 = lexicalBaseline(dataset.corpus, tokenize);
  const systems: Record<string, number[]> = { 'BM25 baseline': [], 'fused (fast)': [], 'reranked (balanced)': [] };
  for (const [i, query] of test.entries()) {
    const judgement = judgements.get(query.id)!;
    const sample = data.training[i]!;
    const scores = await reranker.rerank(sample.query, sample.candidates);
    systems['BM25 baseline']!.push(scoreQuery((await bm25.search(query.query, 100)).ids, judgement).ndcg10);
    systems['fused (fast)']!.push(scoreQuery(data.fusedIds[i]!, judgement).ndcg10);
    systems['reranked (balanced)']!.push(scoreQuery(rerankedIds(scores, data.fusedIds[i]!), judgement).ndcg10);
  }
  return [`## Held-out test split (${test.length} queries, scored once)`, '', ...comparison(systems)];
}

/** nDCG@10 table with 95% bootstrap CIs, ratio and paired difference against the first system (BM25). */
function comparison(systems: Record<string, number[]>): string[] {
  const base = Object.values(systems)[0]!;
  const baseMean = bootstrapMean(base).mean || 1;
  return [
    'nDCG@10 of the full ranking (a hit is the cited PR or one of its commits, credited once), 95% bootstrap CI; ratio and paired difference against BM25.',
    '',
    '| system | nDCG@10 [95% CI] | x BM25 | paired diff vs BM25 [95% CI] |',
    '|---|---|---|---|',
    ...Object.entries(systems).map(([name, values]) => {
      const m = bootstrapMean(values);
      const d = bootstrapDifference(values, base);
      return `| ${name} | ${f3(m.mean)} [${f3(m.lo)}, ${f3(m.hi)}] | ${f3(m.mean / baseMean)} | ${f3(d.mean)} [${f3(d.lo)}, ${f3(d.hi)}] |`;
    }),
  ];
}

await main();
