/**
 * The natural-question report: per split, nDCG@10 and recall@10/100 per kind and overall for every
 * system beside BM25 (paired bootstrap CIs), and the people score (a judged person among the first
 * three people named).
 */
import { bootstrapDifference, bootstrapMean, quantile, type Interval, type MetricName } from '../metrics.js';
import { previousTable, type ScoresFile } from '../report.js';
import type { SystemRun } from '../run.js';
import type { QuestionKind } from './set.js';

export interface PeopleRun {
  name: string;
  /** Per people question, in the same order for every system: 1 when a judged person is in the top 1 / top 3. */
  hit1: number[];
  hit3: number[];
  /** 1 when a judged specialist (grade 2) is in the top 3; null for a question that judges none. */
  specialist3: (number | null)[];
  /** 1 for a question the system named nobody for. */
  nobody: number[];
}

export interface SplitReport {
  split: string;
  kinds: Map<string, QuestionKind>;
  baseline: SystemRun;
  systems: SystemRun[];
  people: PeopleRun[];
}

export interface QuestionsReport {
  date: Date;
  command: string;
  notes: string[];
  splits: SplitReport[];
  /**
   * A previous run's per-question scores (`--compare`) and this run's systems over every question asked:
   * each system found in both is paired with itself.
   */
  previous?: { runs: SystemRun[]; scores: ScoresFile & { file: string } };
}

const f3 = (value: number): string => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
const ci = (interval: Interval): string => `${f3(interval.mean)} [${f3(interval.lo)}, ${f3(interval.hi)}]`;
const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
const diff = (interval: Interval): string => `${signed(interval.mean)} [${signed(interval.lo)}, ${signed(interval.hi)}]`;
const table = (header: string[], rows: string[][]): string[] => [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
const ms = (values: readonly number[]): string => (values.length === 0 ? 'n/a' : `${quantile(values, 0.5).toFixed(0)} / ${quantile(values, 0.95).toFixed(0)}`);

function subset(run: SystemRun, keep: (queryId: string) => boolean): SystemRun {
  return { ...run, scores: run.scores.filter((s) => keep(s.queryId)) };
}

function metric(run: SystemRun, name: MetricName): number[] {
  return run.scores.map((s) => s[name]);
}

function rows(split: SplitReport, label: string, keep: (queryId: string) => boolean): string[][] {
  const base = subset(split.baseline, keep);
  return [split.baseline, ...split.systems].map((full) => {
    const run = subset(full, keep);
    const same = run.scores.every((s, i) => s.queryId === base.scores[i]?.queryId) && run.scores.length === base.scores.length;
    if (!same) throw new Error(`${run.name} and ${base.name} were not scored on the same questions in the same order`);
    const baseMean = bootstrapMean(metric(base, 'ndcg10')).mean;
    const ndcg = bootstrapMean(metric(run, 'ndcg10'));
    const isBase = full === split.baseline;
    return [
      label,
      String(run.scores.length),
      run.name,
      ci(ndcg),
      f3(bootstrapMean(metric(run, 'recall10')).mean),
      f3(bootstrapMean(metric(run, 'recall100')).mean),
      isBase ? '1.000x' : baseMean === 0 ? 'n/a' : `${(ndcg.mean / baseMean).toFixed(3)}x`,
      isBase ? '—' : diff(bootstrapDifference(metric(run, 'ndcg10'), metric(base, 'ndcg10'))),
    ];
  });
}

function splitSection(split: SplitReport): string[] {
  const kinds = [...new Set(split.kinds.values())];
  const counts = kinds.map((kind) => `${kind} ${[...split.kinds.values()].filter((k) => k === kind).length}`).join(', ');
  const header = ['kind', 'n', 'system', 'nDCG@10 [95% CI]', 'recall@10', 'recall@100', 'nDCG@10 vs BM25', 'paired Δ nDCG@10 [95% CI]'];
  const body = [...kinds.flatMap((kind) => rows(split, kind, (id) => split.kinds.get(id) === kind)), ...rows(split, '**all**', () => true)];
  const people = table(
    ['system', 'judged person first', 'judged person in top 3 [95% CI]', 'specialist in top 3 [95% CI] (questions)', 'named nobody'],
    split.people.map((p) => {
      const specialist = p.specialist3.filter((v): v is number => v !== null);
      return [p.name, f3(bootstrapMean(p.hit1).mean), ci(bootstrapMean(p.hit3)), `${ci(bootstrapMean(specialist))} (${specialist.length})`, `${p.nobody.reduce((a, b) => a + b, 0)} of ${p.nobody.length}`];
    }),
  );
  return [
    `## Split: ${split.split} (${split.baseline.scores.length} questions: ${counts})`,
    '',
    ...table(header, body),
    '',
    '### People questions: a judged person among the first three named',
    '',
    ...(split.people[0]?.hit3.length ? people : ['No people question in this split.']),
    '',
    ...[split.baseline, ...split.systems].map((run) => `Latency p50 / p95 (ms) of ${run.name}: client ${ms(run.latencyMs)}; server-reported ${ms(run.reportedMs)}.`),
    '',
  ];
}

export function renderQuestionsReport(report: QuestionsReport): string {
  return [
    `# Natural questions ${report.date.toISOString().slice(0, 10)}`,
    '',
    `Command: \`${report.command}\``,
    '',
    'CIs: percentile bootstrap, 10,000 resamples, seed 1; Δ is the paired difference (system − BM25) resampled over questions.',
    'A hit is a judged pull request or one of its commits, counted once; recall@k = share of questions with a judged item in the top k.',
    ...report.notes.map((note) => `- ${note}`),
    '',
    ...report.splits.flatMap(splitSection),
    ...(report.previous ? previousTable(report.previous.runs, report.previous.scores) : []),
  ].join('\n');
}
