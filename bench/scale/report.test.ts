import { describe, expect, it } from 'vitest';
import type { LoadResult } from './load.js';
import { renderMarkdown, type ScaleReport } from './report.js';
import type { RunResult } from './run.js';

const p = (p50: number) => ({ p50, p95: p50 * 2, p99: p50 * 3, mean: p50 });

function load(total: number, lexical: number, vector: number): LoadResult {
  return {
    mode: 'fast', connections: 1, durationS: 15, requests: 900, requestsPerS: 60, errors: 0, non2xx: 0, timeouts: 0,
    client: p(total + 1), server: p(total),
    stages: { queue: p(0), retrieval: p(total - 2), rerank: p(0), enrich: p(1.5) },
    paths: { embedding: p(0.4), search: p(lexical), vectorSearch: p(vector), entitySearch: p(0.8), clusterSearch: p(1.1), actorSearch: p(0.2) },
  };
}

function run(size: number, total: number, lexical: number, vector: number): RunResult {
  return { deployment: 'embedded', embedder: 'fast', size, startedAt: '2026-11-27T00:00:00Z', phases: [], search: { fast: { '1': load(total, lexical, vector) } } };
}

describe('the scale report', () => {
  it("shows where a one-client search's time goes at each size, path by path", () => {
    const report: ScaleReport = {
      command: 'npm run bench -- scale', startedAt: '', updatedAt: '', complete: true,
      machine: { cores: 2, cpu: 'test', node: 'v22', memoryBytes: 1 }, options: {}, corpora: [],
      runs: [run(10_000, 5.6, 2.1, 3.3), run(100_000, 11.7, 3.4, 7.9)],
    };
    const md = renderMarkdown(report, 'chart.svg');
    const section = md.slice(md.indexOf("## Where a search's time goes"));
    expect(section).toContain('| embedded/fast/10000 | fast | 5.6 | 0.0 | 3.6 | 0.0 | 1.5 | 0.4 | 2.1 | 3.3 | 0.8 | 1.1 | 0.2 |');
    expect(section).toContain('| embedded/fast/100000 | fast | 11.7 | 0.0 | 9.7 | 0.0 | 1.5 | 0.4 | 3.4 | 7.9 | 0.8 | 1.1 | 0.2 |');
  });

  it('shows what the memory held at the peak beside after the import and after the searches', () => {
    const r: RunResult = {
      ...run(100_000, 11.7, 3.4, 7.9),
      memory: { afterImportBytes: 1_300 * 2 ** 20, afterSearchBytes: 1_400 * 2 ** 20, peakBytes: 1_760 * 2 ** 20 },
      memoryParts: { afterImport: { 'main heap': 400 }, afterSearch: { 'main heap': 450 }, atPeak: { 'main heap': 520, 'compute heap': 100 }, atPeakBytes: 1_750 * 2 ** 20 },
    };
    const report: ScaleReport = {
      command: 'npm run bench -- scale', startedAt: '', updatedAt: '', complete: true,
      machine: { cores: 2, cpu: 'test', node: 'v22', memoryBytes: 1 }, options: {}, corpora: [], runs: [r],
    };
    const section = renderMarkdown(report, 'chart.svg').split('## Where the memory is')[1]!;
    expect(section).toContain('| embedded/fast/100000 | main heap | 400.0 | 450.0 | 520.0 |');
    expect(section).toContain('| embedded/fast/100000 | compute heap | - | - | 100.0 |');
    expect(section).toContain('| embedded/fast/100000 | resident, in none of the above | 900.0 | 950.0 | 1130.0 |');
    expect(section).toContain('| embedded/fast/100000 | resident set | 1300.0 | 1400.0 | 1750.0 |');
  });
});
