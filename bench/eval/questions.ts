/**
 * `npx tsx bench/eval/questions.ts --data ../shared/data/github-prettier [--splits dev,test] [--modes balanced]
 *   [--url URL --workspace ID --key KEY] [--baseline-only] [--limit N] [--out bench/results/questions-latest.md]
 *   [--compare bench/results/questions-latest.scores.json]`
 *
 * Scores the natural-question set (`bench/eval/questions/`) on BM25 (the product tokenizer, in memory) and
 * on every search mode of Engram: a fresh embedded instance loaded through the public import path, or an
 * instance already loaded given by `--url/--workspace/--key`. nDCG@10 and recall@10/100 per kind and
 * overall, beside BM25; for people questions, whether a judged person is among the first three
 * `context.relevantActors` (BM25's stand-in: the authors of its top results). `dev` is what tuning may
 * read; `test` is held out and only ever reported. Per-question scores of every split asked are written
 * beside the report (`<out>` with `.scores.json` for `.md`); `--compare` pairs each system with itself in
 * such a file from an earlier run (did a change move the rankings?), over the questions both scored.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { tokenize } from '@engram/text';
import { lexicalBaseline } from './baseline.js';
import { loadDataset, pullRequestsByCommit } from './dataset.js';
import { judgementOf } from './metrics.js';
import { runSystem, type SearchSystem, type SystemRun } from './run.js';
import type { ScoresFile } from './report.js';
import { importDataset, startEmbedded, type EmbeddedEngram, type WorkspaceAccess } from './service.js';
import { searchWithContext } from './questions/engram.js';
import { authorLogin, authorsOfResults, personHitAt, personIndex } from './questions/people.js';
import { renderQuestionsReport, type PeopleRun, type SplitReport } from './questions/report.js';
import { asQuery, commitsByPullRequest, loadQuestions, questionSplitOf, type Question, type QuestionKind } from './questions/set.js';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/github-prettier' },
    questions: { type: 'string' },
    splits: { type: 'string', default: 'dev,test' },
    modes: { type: 'string', default: 'balanced' },
    limit: { type: 'string' },
    'baseline-only': { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/results/questions-latest.md' },
    url: { type: 'string' },
    workspace: { type: 'string' },
    key: { type: 'string' },
    port: { type: 'string', default: '3998' },
    concurrency: { type: 'string', default: '2' },
    compare: { type: 'string' },
  },
});

const splits = args.splits.split(',').filter(Boolean);
if (splits.length === 0 || splits.some((s) => !['dev', 'test', 'all'].includes(s))) throw new Error(`--splits must list dev, test or all (got ${args.splits})`);
if ([args.url, args.workspace, args.key].some(Boolean) && ![args.url, args.workspace, args.key].every(Boolean)) throw new Error('--url, --workspace and --key go together');
const log = (message: string): void => console.error(`[questions] ${message}`);
const repoRoot = process.cwd();
const dataDir = resolve(args.data);

const dataset = await loadDataset(dataDir);
const byCommit = pullRequestsByCommit(dataset.corpus, dataset.links);
const commitsOf = commitsByPullRequest(dataset.corpus, byCommit);
const corpusIds = new Set(dataset.corpus.map((item) => item.id));
const inSplit = (q: Question): boolean => splits.includes('all') || splits.includes(questionSplitOf(q.id));
const questions = (await loadQuestions(args.questions && resolve(args.questions))).filter(inSplit).slice(0, args.limit === undefined ? undefined : Number(args.limit));
const queries = questions.map((q) => asQuery(q, corpusIds, commitsOf));
const judgements = new Map(queries.map((q) => [q.id, judgementOf(q, byCommit)]));
const people = questions.filter((q) => q.kind === 'people');
const concurrency = Number(args.concurrency);
log(`${dataset.corpus.length} items; ${questions.length} questions (${splits.join(', ')}), ${people.length} about people`);

const persons = personIndex(dataset.corpus);
const authors = new Map(dataset.corpus.map((item) => [item.id, authorLogin(item)]));
const judgedLogins = (q: Question): string[] => (q.people ?? []).map((p) => p.login);

function peopleRun(name: string, named: (q: Question) => (readonly string[])[]): PeopleRun {
  const lists = people.map(named);
  return {
    name,
    hit1: people.map((q, i) => personHitAt(lists[i]!, judgedLogins(q), 1)),
    hit3: people.map((q, i) => personHitAt(lists[i]!, judgedLogins(q), 3)),
    specialist3: people.map((q, i) => {
      const specialists = (q.people ?? []).filter((p) => p.grade === 2).map((p) => p.login);
      return specialists.length === 0 ? null : personHitAt(lists[i]!, specialists, 3);
    }),
    nobody: lists.map((list) => (list.length === 0 ? 1 : 0)),
  };
}

// BM25 and its people stand-in: the authors of its top 10 results.
const bm25 = lexicalBaseline(dataset.corpus, tokenize);
const bm25Top = new Map<string, string[]>();
const bm25Search: SearchSystem = async (query, limit) => {
  const answer = await bm25.search(query, limit);
  bm25Top.set(query, answer.ids.slice(0, 10));
  return answer;
};
const baseline = await runSystem('BM25', bm25Search, queries, judgements);
const peopleRuns: PeopleRun[] = [peopleRun('BM25 (authors of its top 10)', (q) => authorsOfResults(bm25Top.get(q.question) ?? [], (id) => authors.get(id)).map((login) => [login]))];
const systems: SystemRun[] = [];

async function connect(): Promise<{ access: WorkspaceAccess; engram?: EmbeddedEngram }> {
  if (args.url && args.workspace && args.key) return { access: { url: args.url, workspaceId: args.workspace, key: args.key } };
  const engram = await startEmbedded({ repoRoot, dataDir: await mkdtemp(join(tmpdir(), 'engram-questions-')), port: Number(args.port), adminToken: randomBytes(24).toString('hex') });
  try {
    const { imported, ...access } = await importDataset(engram, repoRoot, join(dataDir, 'corpus.json'));
    log(`imported: ${JSON.stringify(imported)}`);
    return { access, engram };
  } catch (error) {
    await engram.stop();
    throw error;
  }
}

if (!args['baseline-only']) {
  const { access, engram } = await connect();
  try {
    for (const mode of args.modes.split(',').filter(Boolean)) {
      const started = performance.now();
      const engramSearch = searchWithContext(access, mode);
      systems.push(await runSystem(`engram ${mode}`, engramSearch.search, queries, judgements, { deepCall: true, concurrency }));
      peopleRuns.push(peopleRun(`engram ${mode} (relevantActors)`, (q) => (engramSearch.actorsOf(q.question) ?? []).map((name) => persons.loginsOf(name))));
      log(`mode ${mode}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    await engram?.stop();
  }
}

const kindOf = new Map<string, QuestionKind>(questions.map((q) => [q.id, q.kind]));
const splitReports: SplitReport[] = splits.map((split) => {
  const keep = (id: string): boolean => split === 'all' || questionSplitOf(id) === split;
  // Latencies line up with the scores (one per question); a server-reported one may be missing, so it is kept only when all are there.
  const only = (run: SystemRun): SystemRun => ({
    ...run,
    scores: run.scores.filter((s) => keep(s.queryId)),
    latencyMs: run.latencyMs.filter((_, i) => keep(run.scores[i]!.queryId)),
    reportedMs: run.reportedMs.length === run.scores.length ? run.reportedMs.filter((_, i) => keep(run.scores[i]!.queryId)) : run.reportedMs,
  });
  const peopleKept = people.map((q) => keep(q.id));
  return {
    split,
    kinds: new Map([...kindOf].filter(([id]) => keep(id))),
    baseline: only(baseline),
    systems: systems.map(only),
    people: peopleRuns.map((p) => ({ ...p, hit1: p.hit1.filter((_, i) => peopleKept[i]), hit3: p.hit3.filter((_, i) => peopleKept[i]), specialist3: p.specialist3.filter((_, i) => peopleKept[i]), nobody: p.nobody.filter((_, i) => peopleKept[i]) })),
  };
});

/** The report records the command, never the API key in it. */
const command = `npx tsx bench/eval/questions.ts ${process.argv
  .slice(2)
  .map((arg, i, all) => (all[i - 1] === '--key' ? '<api key>' : arg.replace(/^--key=.*/, '--key=<api key>')))
  .join(' ')}`.trim();
const markdown = renderQuestionsReport({
  date: new Date(),
  command,
  notes: [
    `Questions: \`bench/eval/questions/questions.json\` (${questions.length} asked); how they were written and judged: \`bench/eval/questions/README.md\`.`,
    'BM25: k1 1.2, b 0.75 over title + body (PR) or message (commit), the product tokenizer (`packages/text`); PRs and commits both indexed, as Engram does.',
    'Engram is asked with `includeContext: true`, limit 10 (nDCG, recall@10, people) and again with limit 100 (recall@100).',
    'People: the judged people are who authored the changes to the area; a specialist (grade 2) is one whose share of the area is at least 1.5x their share of all changes, so the repository-wide top author does not make every question easy. "Specialist in top 3" is over the questions that have one.',
    'People: a person named is matched to the judged logins through every name the corpus records for a login (login, commit author names). The "named nobody" figure counts people questions answered with no person at all (empty in the BM25 stand-in when its top 10 holds only bots).',
  ],
  splits: splitReports,
  ...(args.compare ? { previous: { runs: [baseline, ...systems], scores: { file: args.compare, ...(JSON.parse(await readFile(resolve(args.compare), 'utf8')) as ScoresFile) } } } : {}),
});
const out = resolve(args.out);
await mkdir(dirname(out), { recursive: true });
await writeFile(out, markdown);
const scores: ScoresFile = { date: new Date().toISOString(), command, split: splits.join(','), systems: [baseline, ...systems].map((run) => ({ name: run.name, scores: run.scores })) };
await writeFile(out.replace(/(\.md)?$/, '.scores.json'), `${JSON.stringify(scores)}\n`);
log(`wrote ${out}`);
