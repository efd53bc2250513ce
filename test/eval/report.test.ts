import { describe, expect, it } from 'vitest';
import { barChartSvg } from '../../bench/eval/chart.js';
import type { SimilarPair } from '../../bench/eval/dataset.js';
import { scoreFindSimilar } from '../../bench/eval/findsimilar.js';
import type { QueryScores } from '../../bench/eval/metrics.js';
import { scoreRelated, type RelatedEdge } from '../../bench/eval/related.js';
import { renderQuestionsReport } from '../../bench/eval/questions/report.js';
import { renderReport, type EvalReport } from '../../bench/eval/report.js';
import type { SystemRun } from '../../bench/eval/run.js';

const pairs: SimilarPair[] = [
  { a: 'commit:1', b: 'commit:2', relation: 'revert', grade: 3, evidence: '' },
  { a: 'commit:3', b: 'commit:4', relation: 'cherry_pick', grade: 3, evidence: '' },
];

describe('findsimilar scoring', () => {
  it('counts each direction of a pair and groups by relation', async () => {
    const answers: Record<string, string[]> = {
      'commit:1': ['commit:1', 'x', 'commit:2'], // the item itself is skipped; partner found
      'commit:2': ['a', 'b', 'c', 'd', 'e', 'commit:1'], // partner at rank 6: missed
      'commit:3': ['commit:4'],
      'commit:4': ['commit:3'],
    };
    const scores = await scoreFindSimilar(pairs, async (id) => answers[id] ?? []);
    expect(scores.byRelation).toEqual([
      { relation: 'cherry_pick', pairs: 1, partnerInTopK: 1 },
      { relation: 'revert', pairs: 1, partnerInTopK: 0.5 },
    ]);
    expect(scores.overall.partnerInTopK).toBe(0.75);
  });
});

describe('related scoring', () => {
  const links = [
    { type: 'commit_pr', source: 'commit:a', target: 'pull_request:1', directed: false },
    { type: 'commit_pr', source: 'commit:b', target: 'pull_request:2', directed: false },
    { type: 'reverts', source: 'commit:c', target: 'commit:gone', directed: true, target_in_corpus: false },
    { type: 'fixes_issue', source: 'pull_request:1', target: 'issue:9', directed: true },
    { type: 'same_changelog_entry', source: 'pull_request:1', target: 'pull_request:2', directed: false },
  ];
  const corpus = new Set(['commit:a', 'commit:b', 'commit:c', 'pull_request:1', 'pull_request:2']);

  it('measures precision and recall per kind, in either direction, issue edges apart', async () => {
    const graph: Record<string, RelatedEdge[]> = {
      'pull_request:1': [
        { source: 'pull_request:1', target: 'commit:a', kind: 'commit_pr' },
        { source: 'pull_request:1', target: 'issue:9', kind: 'fixes_issue' },
        { source: 'pull_request:1', target: 'commit:b', kind: 'commit_pr' }, // wrong
      ],
      'commit:a': [{ source: 'commit:a', target: 'pull_request:1', kind: 'commit_pr' }],
    };
    const scores = await scoreRelated(links, corpus, async (id) => graph[id] ?? []);
    const commitPr = scores.byKind.find((k) => k.kind === 'commit_pr')!;
    expect(commitPr).toMatchObject({ truth: 2, reachable: 2, predicted: 2, correct: 1, precision: 0.5, recall: 0.5 });
    expect(scores.byKind.find((k) => k.kind === 'fixes_issue')).toMatchObject({ approximate: true, precision: 1, recall: 1 });
    // The revert's target is not in the corpus: it cannot be recovered and does not count against recall.
    expect(scores.byKind.find((k) => k.kind === 'reverts')).toMatchObject({ truth: 1, reachable: 0, recall: 0 });
    expect(scores.exact).toMatchObject({ predicted: 2, correct: 1 });
  });

  it('counts a pull request filed as "references_pr" with relation "revert" as a revert', async () => {
    const withRevertReference = [
      ...links,
      { type: 'references_pr', source: 'pull_request:2', target: 'pull_request:1', directed: true, relation: 'revert', target_in_corpus: true },
      { type: 'references_pr', source: 'pull_request:2', target: 'pull_request:1', directed: true, relation: 'backport', target_in_corpus: true },
    ];
    const graph: Record<string, RelatedEdge[]> = { 'pull_request:2': [{ source: 'pull_request:2', target: 'pull_request:1', kind: 'reverts' }] };
    const scores = await scoreRelated(withRevertReference, corpus, async (id) => graph[id] ?? []);
    expect(scores.byKind.find((k) => k.kind === 'reverts')).toMatchObject({ truth: 2, reachable: 1, predicted: 1, correct: 1, precision: 1, recall: 1 });
    // The backport reference stays a reference, and nothing predicted it.
    expect(scores.byKind.find((k) => k.kind === 'references_pr')).toMatchObject({ truth: 1, reachable: 1, predicted: 0, recall: 0 });
  });

  it('credits a predicted edge links.json holds even when it joins two neighbours rather than a root', async () => {
    // One root asked (commit:a, the first by id); its answer also holds a true edge between two other items.
    const graph: Record<string, RelatedEdge[]> = {
      'commit:a': [
        { source: 'commit:a', target: 'pull_request:1', kind: 'commit_pr' },
        { source: 'commit:b', target: 'pull_request:2', kind: 'commit_pr' },
        { source: 'commit:c', target: 'pull_request:2', kind: 'commit_pr' }, // wrong
      ],
    };
    const scores = await scoreRelated(links, corpus, async (id) => graph[id] ?? [], { maxRoots: 1 });
    expect(scores.roots).toBe(1);
    // Recall is over the one edge touching the root; precision over all three predictions.
    expect(scores.byKind.find((k) => k.kind === 'commit_pr')).toMatchObject({ reachable: 1, found: 1, recall: 1, predicted: 3, correct: 2 });
  });

  it('reports precision against the labels first and, beside it, with audited links counted as correct', async () => {
    const audited = [{ type: 'reverts', source: 'commit:c', target: 'commit:b', directed: true, evidence: 'body: Revert <sha of b>' }];
    const graph: Record<string, RelatedEdge[]> = {
      'pull_request:1': [{ source: 'pull_request:1', target: 'commit:a', kind: 'commit_pr' }],
      'commit:a': [
        { source: 'commit:c', target: 'commit:b', kind: 'reverts' }, // unlabelled but audited
        { source: 'commit:a', target: 'commit:c', kind: 'reverts' }, // wrong either way
      ],
    };
    const scores = await scoreRelated(links, corpus, async (id) => graph[id] ?? [], { audited });
    const reverts = scores.byKind.find((k) => k.kind === 'reverts')!;
    expect(reverts).toMatchObject({ predicted: 2, correct: 0, precision: 0, auditedCorrect: 1, auditedPrecision: 0.5 });
    // An audited link is never truth to recover: recall stays against links.json alone.
    expect(reverts.reachable).toBe(0);
    expect(scores.byKind.find((k) => k.kind === 'commit_pr')).toMatchObject({ precision: 1, auditedPrecision: 1 });
  });
});

const run = (name: string, ndcg: number[]): SystemRun => ({
  name,
  scores: ndcg.map((value, i): QueryScores => ({ queryId: `q${i}`, ndcg10: value, mrr10: value, recall10: value > 0 ? 1 : 0, recall100: 1 })),
  latencyMs: ndcg.map((_, i) => 10 + i),
  reportedMs: [],
});

describe('report', () => {
  const baseline = run('BM25', [1, 0, 0.5, 0, 1, 0.5, 0, 1]);
  const better = run('engram balanced', [1, 1, 0.5, 1, 1, 0.5, 0, 1]);
  const report: EvalReport = { date: new Date('2026-01-02T00:00:00Z'), command: 'npm run eval', dataDir: 'data', split: 'dev', baseline, systems: [better], ablations: [], findSimilar: [], related: [], notes: [] };

  it('states every system against the baseline with its ratio and paired difference', () => {
    const markdown = renderReport(report);
    expect(markdown).toContain('# Evaluation 2026-01-02');
    expect(markdown).toContain('| engram balanced | 0.750 [');
    expect(markdown).toContain('1.500x');
    expect(markdown).toMatch(/\+0\.250 \[\+0\.\d{3}, \+0\.\d{3}\]/);
    expect(markdown).toContain('client 13.0 / 17.0');
  });

  it('pairs each system with itself in a previous run, over the queries both scored', () => {
    const then = run('engram balanced', [1, 0, 0.5, 0, 1, 0.5, 0, 1]);
    const markdown = renderReport({
      ...report,
      previous: { file: 'old.scores.json', date: '2026-01-01T00:00:00Z', command: 'npm run eval', split: 'dev', systems: [{ name: then.name, scores: then.scores.slice(0, 6) }] },
    });
    const row = markdown.split('\n').find((line) => line.startsWith('| engram balanced | 6 |'));
    // Six queries in common; two of them moved from 0 to 1 (q1, q3): Δ nDCG@10 = 2/6.
    expect(row).toMatch(/^\| engram balanced \| 6 \| 0\.500 \| 0\.833 \| \+0\.333 \[\+0\.\d{3}, \+0\.\d{3}\] \|/);
    expect(row?.endsWith('| 2 |')).toBe(true);
    // BM25 is not in the previous file: no row for it.
    expect(markdown).not.toMatch(/^\| BM25 \| 6 \|/m);
  });

  it('pairs the natural questions with a previous run over every question asked, beside the per-split tables', () => {
    const then = run('engram balanced', [1, 1, 0.5, 0, 1, 0.5, 0, 1]);
    const split = { split: 'dev', kinds: new Map(baseline.scores.map((s) => [s.queryId, 'bug' as const])), baseline, systems: [better], people: [] };
    const markdown = renderQuestionsReport({
      date: new Date('2026-01-02T00:00:00Z'),
      command: 'questions',
      notes: [],
      splits: [split],
      previous: { runs: [baseline, better], scores: { file: 'old.scores.json', date: '2026-01-01T00:00:00Z', command: 'questions', split: 'dev', systems: [{ name: then.name, scores: then.scores }] } },
    });
    expect(markdown).toContain('## Against the previous run');
    // One question of eight moved from 0 to 1 (q3): Δ nDCG@10 = 1/8.
    expect(markdown).toMatch(/^\| engram balanced \| 8 \| 0\.625 \| 0\.750 \| \+0\.125 \[/m);
    expect(renderQuestionsReport({ date: new Date(), command: 'questions', notes: [], splits: [split] })).not.toContain('Against the previous run');
  });

  it('refuses to compare systems scored on different queries', () => {
    expect(() => renderReport({ ...report, systems: [run('short', [1, 1])] })).toThrow(/same queries/);
  });

  it('draws one bar and one whisker per system', () => {
    const svg = barChartSvg('nDCG@10', [
      { label: 'BM25 <lexical>', value: { mean: 0.6, lo: 0.55, hi: 0.65 }, reference: true },
      { label: 'balanced', value: { mean: 0.7, lo: 0.64, hi: 0.76 } },
    ]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<rect x=/g)).toHaveLength(2);
    expect(svg).toContain('BM25 &lt;lexical&gt;');
    expect(svg).toContain('0.700');
  });
});
