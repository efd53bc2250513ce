/**
 * `npx tsx bench/eval/releaseNotePrior.ts --index DIR [--workspace ID] [--data ../shared/data/github-prettier]
 *   [--out bench/results/release-note-prior.md]`
 *
 * What the learned reranker's release-note prior (the `releaseNote` signal: the change wrote a changelog
 * entry) is worth on both question sets. In-process on a loaded index (a data dir no other process holds),
 * `balanced` runs through the search service with a reranker that records the candidates it is given; the
 * same candidates are then ordered by three models:
 *  - shipped: the bundled model (`DEFAULT_LTR_MODEL`);
 *  - retrained: the same options retrained on this index's dev release-note queries (the noise of retraining);
 *  - without prior: retrained likewise with `releaseNote` reading 0 for every candidate, and scored so.
 * Scored on the release-note held-out split and on the natural-question set (dev and test, per kind), with
 * paired bootstrap differences. The shipped ordering is checked against the service's own `balanced` page.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SearchRequest } from '@engram/contracts';
import { createLearnedReranker, createSearchService, DEFAULT_LTR_MODEL, RERANK_DEPTH, trainReranker, type Candidate, type LtrModel, type Reranker, type TrainingQuery, type TrainOptions } from '@engram/search';
import { listWorkspaces } from '@engram/stores';
import { openFirstStageRuntime } from '../runtime.js';
import { datasetIdFromUrl, loadDataset, pullRequestsByCommit, splitQueries, type Query } from './dataset.js';
import { bootstrapDifference, bootstrapMean, judgementOf, scoreQuery, type Judgement } from './metrics.js';
import { asQuery, commitsByPullRequest, loadQuestions, questionSplitOf, type QuestionKind } from './questions/set.js';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/github-prettier' },
    index: { type: 'string' },
    workspace: { type: 'string' },
    out: { type: 'string', default: 'bench/results/release-note-prior.md' },
  },
});
if (!args.index) throw new Error('--index DIR (a copy of a loaded data dir) is required');
const log = (message: string): void => console.error(`[release-note-prior] ${message}`);
const SIGNAL = 'releaseNote';

const withoutPrior = (candidates: readonly Candidate[]): Candidate[] => candidates.map((c) => ({ ...c, signals: { ...c.signals, [SIGNAL]: 0 } }));

/** One query's recorded second-stage input and the service's own first page. */
interface Recorded {
  query: Query;
  candidates: Candidate[];
  servicePage: string[];
}

const dataset = await loadDataset(resolve(args.data));
const byCommit = pullRequestsByCommit(dataset.corpus, dataset.links);
const corpusIds = new Set(dataset.corpus.map((item) => item.id));
const commitsOf = commitsByPullRequest(dataset.corpus, byCommit);
const questions = await loadQuestions();
const kindOf = new Map<string, QuestionKind>(questions.map((q) => [q.id, q.kind]));

const rnDev = splitQueries(dataset.queries, 'dev');
const rnTest = splitQueries(dataset.queries, 'test');
const natural = questions.map((q) => asQuery(q, corpusIds, commitsOf));
const judgements = new Map<string, Judgement>([...rnDev, ...rnTest, ...natural].map((q) => [q.id, judgementOf(q, byCommit)]));

const runtime = await openFirstStageRuntime(resolve(args.index), 'release-note-prior');
try {
  const workspaceId = args.workspace ?? (await listWorkspaces(runtime.db))[0]?.id;
  if (!workspaceId) throw new Error(`no workspace in ${args.index}`);
  const urls = new Map((await runtime.db.query<{ id: string; url: string }>('SELECT id, url FROM items WHERE workspace_id = $1', [workspaceId])).rows.map((r) => [r.id, r.url]));
  const datasetId = (engramId: string): string | null => datasetIdFromUrl(urls.get(engramId) ?? '');

  let last: Candidate[] = [];
  const shipped = createLearnedReranker(DEFAULT_LTR_MODEL);
  const recorder: Reranker = {
    name: 'recording learned',
    readsAreaSignal: true,
    async rerank(query, candidates) {
      last = candidates;
      return shipped.rerank(query, candidates);
    },
  };
  const service = createSearchService({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder, reranker: recorder });

  async function record(queries: readonly Query[], label: string): Promise<Recorded[]> {
    const out: Recorded[] = [];
    const started = performance.now();
    for (const query of queries) {
      last = [];
      const outcome = await service.search(workspaceId!, SearchRequest.parse({ query: query.query, limit: 10, mode: 'balanced' }));
      out.push({ query, candidates: last, servicePage: outcome.results.map((r) => r.id) });
    }
    log(`${label}: ${queries.length} queries in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return out;
  }

  const dev = await record(rnDev, 'release-note dev (training)');
  const training = (strip: boolean): TrainingQuery[] =>
    dev.map(({ query, candidates }) => {
      const judgement = judgements.get(query.id)!;
      const head = candidates.slice(0, RERANK_DEPTH);
      return {
        query: query.query,
        candidates: strip ? withoutPrior(head) : head,
        relevance: head.map((c) => judgement.targets.find((t) => t.ids.has(datasetId(c.id) ?? ''))?.grade ?? 0),
      };
    });
  const options = (DEFAULT_LTR_MODEL.trainedOn?.options ?? {}) as Partial<TrainOptions>;
  const retrained: LtrModel = trainReranker(training(false), options);
  const noPrior: LtrModel = trainReranker(training(true), options);
  const priorWeight = (model: LtrModel): string => {
    const i = model.features.indexOf(SIGNAL);
    return (model.linear.weights[i] ?? 0).toFixed(3);
  };
  log(`weights of ${SIGNAL}: shipped ${priorWeight(DEFAULT_LTR_MODEL)}, retrained ${priorWeight(retrained)}, without ${priorWeight(noPrior)}`);

  const variants: { name: string; score: (q: string, cs: Candidate[]) => Promise<number[]> }[] = [
    { name: 'shipped model', score: (q, cs) => shipped.rerank(q, cs) },
    { name: 'retrained, with prior', score: (q, cs) => createLearnedReranker(retrained).rerank(q, cs) },
    { name: 'retrained, without prior', score: (q, cs) => createLearnedReranker(noPrior).rerank(q, withoutPrior(cs)) },
  ];

  /** The second stage's order: scores clamped to [0, 1], best first, ties by id (as `rerankTop`). */
  const order = (candidates: readonly Candidate[], scores: readonly number[]): string[] =>
    candidates
      .map((c, i) => ({ id: c.id, s: Math.max(0, Math.min(1, scores[i] ?? 0)) }))
      .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((o) => o.id);

  const toDataset = (ids: readonly string[]): string[] => ids.flatMap((id) => datasetId(id) ?? []);

  interface Scored {
    set: string;
    ids: string[];
    ndcg: number[][];
    recall10: number[][];
    agree: number;
  }
  async function score(set: string, recorded: readonly Recorded[]): Promise<Scored> {
    const ndcg: number[][] = variants.map(() => []);
    const recall10: number[][] = variants.map(() => []);
    let agree = 0;
    for (const { query, candidates, servicePage } of recorded) {
      const judgement = judgements.get(query.id)!;
      const head = candidates.slice(0, RERANK_DEPTH);
      for (const [v, variant] of variants.entries()) {
        const ranked = order(head, await variant.score(query.query, head));
        if (v === 0 && ranked.slice(0, servicePage.length).join() === servicePage.join()) agree++;
        const s = scoreQuery(toDataset(ranked), judgement);
        ndcg[v]!.push(s.ndcg10);
        recall10[v]!.push(s.recall10);
      }
    }
    return { set, ids: recorded.map((r) => r.query.id), ndcg, recall10, agree };
  }

  const test = await record(rnTest, 'release-note test');
  const nat = await record(natural, 'natural questions');
  const sets: Scored[] = [await score('release-note dev (training set: in-sample)', dev), await score('release-note test (held out)', test)];
  const natScored = await score('natural', nat);
  const subset = (name: string, keep: (id: string) => boolean): Scored => {
    const idx = natScored.ids.map((id, i) => (keep(id) ? i : -1)).filter((i) => i >= 0);
    const pick = (xs: number[][]) => xs.map((x) => idx.map((i) => x[i]!));
    return { set: name, ids: idx.map((i) => natScored.ids[i]!), ndcg: pick(natScored.ndcg), recall10: pick(natScored.recall10), agree: NaN };
  };
  for (const split of ['dev', 'test'] as const) {
    sets.push(subset(`natural ${split}, all kinds`, (id) => questionSplitOf(id) === split));
    for (const kind of ['bug', 'howto', 'people', 'change'] as const) sets.push(subset(`natural ${split}, ${kind}`, (id) => questionSplitOf(id) === split && kindOf.get(id) === kind));
  }
  sets.push(subset('natural all, all kinds', () => true));

  const f3 = (x: number): string => x.toFixed(3);
  const signed = (x: number): string => (x >= 0 ? '+' : '') + f3(x);
  const lines = [
    '# The release-note prior of the learned reranker',
    '',
    `Command: \`npx tsx bench/eval/releaseNotePrior.ts ${process.argv.slice(2).join(' ')}\``,
    `Date: ${new Date().toISOString()}. Index: the full prettier corpus, ${urls.size} items; \`balanced\` in-process.`,
    `Weight of the standardised \`${SIGNAL}\` feature: shipped ${priorWeight(DEFAULT_LTR_MODEL)}, retrained ${priorWeight(retrained)}, without prior ${priorWeight(noPrior)} (options ${JSON.stringify(options)}, ${dev.length} dev release-note queries).`,
    `The shipped model's ordering of the recorded candidates equals the service's own \`balanced\` first page for ${sets[1]!.agree} of ${test.length} held-out release-note queries and ${natScored.agree} of ${nat.length} natural questions.`,
    '',
    'nDCG@10 (95% bootstrap CI, 10,000 resamples, seed 1); Δ = without prior − retrained with prior, paired over questions.',
    '',
    '| set | n | shipped | retrained, with prior | retrained, without prior | Δ nDCG@10 [95% CI] | Δ recall@10 |',
    '|---|---|---|---|---|---|---|',
    ...sets.map((s) => {
      const m = s.ndcg.map((x) => bootstrapMean(x));
      const d = bootstrapDifference(s.ndcg[2]!, s.ndcg[1]!);
      const r = bootstrapDifference(s.recall10[2]!, s.recall10[1]!);
      return `| ${s.set} | ${s.ids.length} | ${m.map((x) => `${f3(x.mean)} [${f3(x.lo)}, ${f3(x.hi)}]`).join(' | ')} | ${signed(d.mean)} [${signed(d.lo)}, ${signed(d.hi)}] | ${signed(r.mean)} |`;
    }),
  ];
  const out = resolve(args.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${lines.join('\n')}\n`);
  log(`wrote ${out}`);
} finally {
  await runtime.close();
}
