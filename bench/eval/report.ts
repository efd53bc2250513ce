/**
 * The evaluation report: Markdown tables with bootstrap CIs, every system compared with the lexical
 * baseline on the same queries, plus an SVG chart of nDCG@10.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { barChartSvg } from './chart.js';
import type { FindSimilarScores } from './findsimilar.js';
import { bootstrapDifference, bootstrapMean, quantile, type Interval, type MetricName } from './metrics.js';
import type { RelatedScores } from './related.js';
import type { SystemRun } from './run.js';

export interface AblationTable {
  caption: string;
  /** The full system each row is compared with. */
  reference: SystemRun;
  rows: SystemRun[];
}

export interface EvalReport {
  date: Date;
  command: string;
  dataDir: string;
  split: string;
  /** The lexical baseline every figure is a ratio against. */
  baseline: SystemRun;
  /** Other systems: service modes, baseline variants. Scored on the same queries in the same order. */
  systems: SystemRun[];
  ablations: AblationTable[];
  findSimilar: { system: string; scores: FindSimilarScores }[];
  related: { system: string; scores: RelatedScores }[];
  notes: string[];
  /** A previous run's per-query scores (`--compare`): each system found in both is paired with itself. */
  previous?: ScoresFile & { file: string };
}

/** Per-query scores of a run, written beside the report so a later run can pair up with it. */
export interface ScoresFile {
  date: string;
  command: string;
  split: string;
  systems: { name: string; scores: SystemRun['scores'] }[];
}

const METRICS: { name: MetricName; label: string }[] = [
  { name: 'ndcg10', label: 'nDCG@10' },
  { name: 'mrr10', label: 'MRR@10' },
  { name: 'recall10', label: 'recall@10' },
  { name: 'recall100', label: 'recall@100' },
];

const f3 = (value: number): string => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
const ci = (interval: Interval): string => `${f3(interval.mean)} [${f3(interval.lo)}, ${f3(interval.hi)}]`;
const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
const diff = (interval: Interval): string => `${signed(interval.mean)} [${signed(interval.lo)}, ${signed(interval.hi)}]`;
const ms = (values: readonly number[]): string => (values.length === 0 ? 'n/a' : `${quantile(values, 0.5).toFixed(1)} / ${quantile(values, 0.95).toFixed(1)}`);
const values = (run: SystemRun, metric: MetricName): number[] => run.scores.map((s) => s[metric]);
const table = (header: string[], rows: string[][]): string[] => [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];

function assertPaired(a: SystemRun, b: SystemRun): void {
  const same = a.scores.length === b.scores.length && a.scores.every((s, i) => s.queryId === b.scores[i]!.queryId);
  if (!same) throw new Error(`${a.name} and ${b.name} were not scored on the same queries in the same order`);
}

function versus(run: SystemRun, reference: SystemRun, metric: MetricName): { ratio: string; delta: string } {
  assertPaired(run, reference);
  const base = bootstrapMean(values(reference, metric)).mean;
  const ratio = base === 0 ? 'n/a' : `${(bootstrapMean(values(run, metric)).mean / base).toFixed(3)}x`;
  return { ratio, delta: diff(bootstrapDifference(values(run, metric), values(reference, metric))) };
}

function summary(report: EvalReport): string[] {
  const runs = [report.baseline, ...report.systems];
  return table(
    ['system', 'nDCG@10 [95% CI]', 'MRR@10', 'recall@10', 'recall@100', 'nDCG@10 vs baseline', 'paired Δ nDCG@10 [95% CI]'],
    runs.map((run) => {
      const { ratio, delta } = run === report.baseline ? { ratio: '1.000x', delta: '—' } : versus(run, report.baseline, 'ndcg10');
      return [run.name, ci(bootstrapMean(values(run, 'ndcg10'))), f3(bootstrapMean(values(run, 'mrr10')).mean), f3(bootstrapMean(values(run, 'recall10')).mean), f3(bootstrapMean(values(run, 'recall100')).mean), ratio, delta];
    }),
  );
}

function systemTable(run: SystemRun, baseline: SystemRun): string[] {
  const rows = METRICS.map(({ name, label }) => {
    const { ratio, delta } = run === baseline ? { ratio: '1.000x', delta: '—' } : versus(run, baseline, name);
    return [label, ci(bootstrapMean(values(run, name))), f3(bootstrapMean(values(baseline, name)).mean), ratio, delta];
  });
  return [
    `### ${run.name}`,
    '',
    ...table(['metric', 'value [95% CI]', 'baseline', 'ratio', 'paired Δ [95% CI]'], rows),
    '',
    `Latency p50 / p95 (ms): client ${ms(run.latencyMs)}; server-reported ${ms(run.reportedMs)}.`,
    '',
  ];
}

/**
 * Each system against itself in a previous run, paired over the queries both scored (same query ids):
 * whether a change moved the rankings. A difference whose CI holds 0 is no measurable move.
 */
export function previousTable(runs: readonly SystemRun[], previous: (ScoresFile & { file: string }) | undefined): string[] {
  if (!previous) return [];
  const rows = runs.flatMap((run) => {
    const before = previous.systems.find((s) => s.name === run.name);
    if (!before) return [];
    const old = new Map(before.scores.map((s) => [s.queryId, s]));
    const both = run.scores.filter((s) => old.has(s.queryId));
    const pair = (metric: MetricName) => diff(bootstrapDifference(both.map((s) => s[metric]), both.map((s) => old.get(s.queryId)![metric])));
    const changed = both.filter((s) => s.ndcg10 !== old.get(s.queryId)!.ndcg10).length;
    return [[run.name, String(both.length), f3(bootstrapMean(both.map((s) => old.get(s.queryId)!.ndcg10)).mean), f3(bootstrapMean(both.map((s) => s.ndcg10)).mean), pair('ndcg10'), pair('recall10'), pair('recall100'), String(changed)]];
  });
  return [
    `## Against the previous run`,
    '',
    `\`${previous.file}\` (${previous.date.slice(0, 10)}, \`${previous.command}\`). Paired over the queries both runs scored; Δ = this run − that run.`,
    '',
    ...table(['system', 'queries', 'nDCG@10 then', 'nDCG@10 now', 'Δ nDCG@10 [95% CI]', 'Δ recall@10 [95% CI]', 'Δ recall@100 [95% CI]', 'queries whose nDCG@10 changed'], rows),
    '',
  ];
}

function ablationTable(ablation: AblationTable): string[] {
  const rows = [ablation.reference, ...ablation.rows].map((run) => {
    const delta = run === ablation.reference ? '—' : versus(run, ablation.reference, 'ndcg10').delta;
    return [run.name, ci(bootstrapMean(values(run, 'ndcg10'))), f3(bootstrapMean(values(run, 'recall100')).mean), delta];
  });
  return [`### ${ablation.caption}`, '', ...table(['variant', 'nDCG@10 [95% CI]', 'recall@100', `Δ nDCG@10 vs ${ablation.reference.name} [95% CI]`], rows), ''];
}

function findSimilarTable(results: EvalReport['findSimilar']): string[] {
  if (results.length === 0) return ['Not run.', ''];
  const relations = [...new Set(results.flatMap((r) => r.scores.byRelation.map((b) => b.relation)))];
  const cell = (scores: FindSimilarScores, relation: string): string => {
    const score = relation === 'all' ? scores.overall : scores.byRelation.find((b) => b.relation === relation);
    return score ? `${f3(score.partnerInTopK)} (${score.pairs})` : '—';
  };
  return [...table(['relation', ...results.map((r) => `${r.system}: partner in top ${r.scores.k} (pairs)`)], [...relations, 'all'].map((relation) => [relation, ...results.map((r) => cell(r.scores, relation))])), ''];
}

function relatedTable(results: EvalReport['related']): string[] {
  if (results.length === 0) return ['Not run.', ''];
  return results.flatMap(({ system, scores }) => [
    `### ${system} (${scores.roots} roots asked, depth 1)`,
    '',
    ...table(
      ['edge kind', 'truth', 'reachable', 'found', 'recall', 'predicted', 'correct', 'precision', 'precision with audited links'],
      [...scores.byKind, scores.exact].map((k) => [k.approximate ? `${k.kind} (approximate)` : k.kind, String(k.truth), String(k.reachable), String(k.found), f3(k.recall), String(k.predicted), String(k.correct), f3(k.precision), f3(k.auditedPrecision)]),
    ),
    '',
    'Reachable: links.json edges that touch a root asked about; found: those the answers hold. Correct: predicted edges links.json holds, touching a root or not (at depth 1 an answer also holds edges between two neighbours). Precision with audited links also counts as correct the predictions listed in `bench/eval/audited-links.json`: real links `links.json` leaves out, each with its evidence. Recall is against `links.json` alone.',
    '',
  ]);
}

export function renderReport(report: EvalReport): string {
  return [
    `# Evaluation ${report.date.toISOString().slice(0, 10)}`,
    '',
    `Command: \`${report.command}\``,
    `Data: \`${report.dataDir}\`; split: **${report.split}** (${report.baseline.scores.length} queries). Baseline: **${report.baseline.name}**.`,
    'CIs: percentile bootstrap, 10,000 resamples, seed 1; Δ is the paired difference (system − baseline) resampled over queries.',
    'A hit is a cited PR or one of its commits; a PR and its commit in one list count once (first occurrence). recall@k = share of queries with a target in the top k.',
    ...report.notes.map((note) => `- ${note}`),
    '',
    '![nDCG@10 per system](eval-latest.svg)',
    '',
    '## Summary',
    '',
    ...summary(report),
    '',
    ...previousTable([report.baseline, ...report.systems], report.previous),
    '## Per system',
    '',
    ...[report.baseline, ...report.systems].flatMap((run) => systemTable(run, report.baseline)),
    '## Ablations',
    '',
    ...(report.ablations.length === 0 ? ['Not run.', ''] : report.ablations.flatMap(ablationTable)),
    '## findsimilar (`similar.json`)',
    '',
    ...findSimilarTable(report.findSimilar),
    '## related (`links.json`)',
    '',
    ...relatedTable(report.related),
  ].join('\n');
}

export function renderChart(report: EvalReport): string {
  const bars = [report.baseline, ...report.systems].map((run) => ({ label: run.name, value: bootstrapMean(values(run, 'ndcg10')), reference: run === report.baseline }));
  return barChartSvg(`nDCG@10 (${report.split}, ${report.baseline.scores.length} queries, 95% CI)`, bars);
}

/**
 * Writes `eval-<date>.md`, `eval-latest.md`, `eval-latest.svg` and the per-query scores
 * (`eval-<date>.scores.json`, `eval-latest.scores.json`: what `--compare` reads) into `outDir`; returns their paths.
 */
export async function writeReport(outDir: string, report: EvalReport): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const markdown = renderReport(report);
  const scores: ScoresFile = {
    date: report.date.toISOString(),
    command: report.command,
    split: report.split,
    systems: [report.baseline, ...report.systems].map((run) => ({ name: run.name, scores: run.scores })),
  };
  const day = report.date.toISOString().slice(0, 10);
  const files: [string, string][] = [
    [`eval-${day}.md`, markdown],
    ['eval-latest.md', markdown],
    ['eval-latest.svg', renderChart(report)],
    [`eval-${day}.scores.json`, `${JSON.stringify(scores)}\n`],
    ['eval-latest.scores.json', `${JSON.stringify(scores)}\n`],
  ];
  await Promise.all(files.map(([name, text]) => writeFile(join(outDir, name), text)));
  return files.map(([name]) => join(outDir, name));
}
