/**
 * `npx tsx bench/tune-fusion.ts --index <engram data dir> [--data ../shared/data/github-prettier]`
 *
 * Tunes the first-stage fusion weights (`DEFAULT_FUSION`) on the DEV queries only. Each dev query runs
 * once through the search service (`fast`, `debugCandidates`), which returns every pooled candidate
 * with its per-path scores; weights are then searched in memory (the candidate pool does not depend on
 * them) by coordinate ascent on mean nDCG@10. Prints the best weights, the default's score, and the
 * per-path ablation; never looks at the test split.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SearchRequest } from '@engram/contracts';
import { openFirstStageRuntime } from './runtime.js';
import { createSearchService, DEFAULT_FUSION, DEFAULT_LEXICAL, type Candidate, type FusionWeights, type LexicalParams } from '@engram/search';
import { fuse, fusionSignals, recencyScore } from '@engram/search/fusion';
import { listWorkspaces } from '@engram/stores';
import { datasetIdFromUrl, loadDataset, pullRequestsByCommit, splitQueries } from './eval/dataset.js';
import { judgementOf, ndcgAt, type Judgement } from './eval/metrics.js';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/github-prettier' },
    index: { type: 'string' },
    workspace: { type: 'string' },
    /** BM25F variant to gather candidates with (defaults: DEFAULT_LEXICAL). */
    k1: { type: 'string' },
    b: { type: 'string' },
    title: { type: 'string' },
    body: { type: 'string' },
    paths: { type: 'string' },
    /** Only score DEFAULT_FUSION and each path removed from it (the ablation table). */
    'ablate-only': { type: 'boolean', default: false },
    /** Also estimate how tuned weights generalise: k-fold cross-validation over the dev queries. */
    cv: { type: 'boolean', default: false },
    /** Run the dev queries again instead of reusing the candidates cached in the index dir. */
    recollect: { type: 'boolean', default: false },
    /** Comma-separated weights to leave at their default (not tuned), e.g. `proximity,termCoverage`. */
    fixed: { type: 'string', default: '' },
  },
});
const lexical: LexicalParams = {
  ...DEFAULT_LEXICAL,
  k1: Number(args.k1 ?? DEFAULT_LEXICAL.k1),
  b: Number(args.b ?? DEFAULT_LEXICAL.b),
  fieldWeights: {
    ...DEFAULT_LEXICAL.fieldWeights,
    A: Number(args.title ?? DEFAULT_LEXICAL.fieldWeights.A),
    B: Number(args.body ?? DEFAULT_LEXICAL.fieldWeights.B),
    C: Number(args.paths ?? DEFAULT_LEXICAL.fieldWeights.C),
  },
};
console.log(`lexical ${JSON.stringify(lexical)}`);
if (!args.index) throw new Error('--index <data dir of an Engram instance holding the dataset> is required');

const dataset = await loadDataset(resolve(args.data));
const byCommit = pullRequestsByCommit(dataset.corpus, dataset.links);
const dev = splitQueries(dataset.queries, 'dev');

/** What tuning needs of a candidate: everything `fuse` reads. */
interface Scored {
  id: string;
  datasetId: string;
  occurredAt: string;
  paths: Candidate['paths'];
  signals: Record<string, number>;
}
interface Row {
  judgement: Judgement;
  candidates: Scored[];
}

/** The dev queries' pooled candidates; the pool does not depend on the fusion weights, so it is cached. */
async function gather(): Promise<Row[]> {
  const cacheFile = join(resolve(args.index!), `fusion-candidates-${lexicalTag}.json`);
  if (existsSync(cacheFile) && !args.recollect) return JSON.parse(await readFile(cacheFile, 'utf8')) as Row[];
  const runtime = await openFirstStageRuntime(resolve(args.index!), 'tune-fusion');
  try {
    const workspaceId = args.workspace ?? (await listWorkspaces(runtime.db))[0]!.id;
    const service = createSearchService({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder, lexical });
    const urls = new Map((await runtime.db.query<{ id: string; url: string }>('SELECT id, url FROM items WHERE workspace_id = $1', [workspaceId])).rows.map((r) => [r.id, r.url]));
    const out: Row[] = [];
    const started = performance.now();
    for (const q of dev) {
      const result = await service.search(workspaceId, SearchRequest.parse({ query: q.query, mode: 'fast', limit: 10, includeContext: false }), { debugCandidates: true });
      out.push({
        judgement: judgementOf(q, byCommit),
        candidates: result.candidates!.map((c) => ({
          id: c.id,
          datasetId: datasetIdFromUrl(urls.get(c.id) ?? '') ?? c.id,
          occurredAt: c.occurredAt,
          paths: c.paths,
          signals: c.signals,
        })),
      });
    }
    console.error(`gathered ${out.length} dev queries in ${Math.round((performance.now() - started) / 1000)} s`);
    await writeFile(cacheFile, JSON.stringify(out));
    return out;
  } finally {
    await runtime.close();
  }
}

const lexicalTag = `${lexical.k1}-${lexical.b}-${lexical.fieldWeights.A}-${lexical.fieldWeights.B}-${lexical.fieldWeights.C}`;
const rows = await gather();
// Judgements hold Sets, which JSON does not keep: rebuild them from the queries.
rows.forEach((r, i) => (r.judgement = judgementOf(dev[i]!, byCommit)));
const now = new Date();

function evaluate(w: FusionWeights, on: readonly Row[] = rows): number {
  let total = 0;
  for (const r of on) {
    const ranked = r.candidates
      .map((c) => ({ id: c.datasetId, s: fuse(c.paths, fusionSignals(c.signals, recencyScore(Date.parse(c.occurredAt), now, w.recencyHalfLifeDays)), w), tie: c.id }))
      .sort((a, b) => b.s - a.s || (a.tie < b.tie ? -1 : 1))
      .map((x) => x.id);
    total += ndcgAt(ranked, r.judgement, 10);
  }
  return on.length ? total / on.length : 0;
}

const KEYS = ['lexical', 'vector', 'entity', 'cluster', 'actor', 'recency', 'proximity', 'termCoverage'] as const;
const fixed = new Set(args.fixed.split(',').filter(Boolean));
const tuned = KEYS.filter((k) => !fixed.has(k));

/** Coordinate ascent on mean nDCG@10 over `on`: relative steps, and absolute starts for a weight at 0. */
function tune(start: FusionWeights, on: readonly Row[]): { weights: FusionWeights; score: number } {
  let best = { ...start };
  let bestScore = evaluate(best, on);
  for (let round = 0; round < 6; round++) {
    let improved = false;
    for (const k of tuned) {
      const trials = best[k] === 0 ? [0.05, 0.1, 0.25, 0.5, 1].map((f) => Math.round(best.lexical * f * 1000) / 1000) : [0, 0.25, 0.5, 0.75, 1.5, 2, 3].map((f) => Math.round(best[k] * f * 1000) / 1000);
      for (const value of trials) {
        const trial = { ...best, [k]: value };
        const s = evaluate(trial, on);
        if (s > bestScore + 1e-4) {
          best = trial;
          bestScore = s;
          improved = true;
        }
      }
    }
    for (const hl of [30, 90, 180, 365, 730, 1460]) {
      if (fixed.has('recency')) break;
      const trial = { ...best, recencyHalfLifeDays: hl };
      const s = evaluate(trial, on);
      if (s > bestScore + 1e-4) {
        best = trial;
        bestScore = s;
        improved = true;
      }
    }
    if (!improved) break;
  }
  return { weights: best, score: bestScore };
}

const baseScore = evaluate(DEFAULT_FUSION);
console.log(`default ${JSON.stringify(DEFAULT_FUSION)} -> dev nDCG@10 ${baseScore.toFixed(4)}`);
if (args['ablate-only']) {
  const row = (label: string, w: FusionWeights) => console.log(`| ${label} | ${evaluate(w).toFixed(3)} | ${(evaluate(w) - baseScore).toFixed(3)} |`);
  for (const k of KEYS) row(`${k} removed`, { ...DEFAULT_FUSION, [k]: 0 });
  // The three lexical signals come from one query of the full-text index: remove them together too.
  row('all lexical evidence removed (lexical, proximity, termCoverage)', { ...DEFAULT_FUSION, lexical: 0, proximity: 0, termCoverage: 0 });
  process.exit(0);
}
if (args.cv) {
  // Out-of-fold: weights tuned on k-1 folds score the held-out fold; every dev query is scored once.
  const k = 5;
  let oofDefault = 0;
  let oofTuned = 0;
  for (let f = 0; f < k; f++) {
    const train = rows.filter((_, i) => i % k !== f);
    const held = rows.filter((_, i) => i % k === f);
    const t = tune(DEFAULT_FUSION, train);
    oofDefault += evaluate(DEFAULT_FUSION, held) * held.length;
    oofTuned += evaluate(t.weights, held) * held.length;
    console.log(`fold ${f}: tuned on ${train.length} -> ${t.score.toFixed(4)}; held-out ${held.length}: default ${evaluate(DEFAULT_FUSION, held).toFixed(4)}, tuned ${evaluate(t.weights, held).toFixed(4)} ${JSON.stringify(t.weights)}`);
  }
  console.log(`cross-validated dev nDCG@10: default ${(oofDefault / rows.length).toFixed(4)}, tuned out-of-fold ${(oofTuned / rows.length).toFixed(4)}`);
}
const { weights: best, score: bestScore } = tune(DEFAULT_FUSION, rows);
console.log(`best ${JSON.stringify(best)} -> dev nDCG@10 ${bestScore.toFixed(4)}`);
for (const k of KEYS) console.log(`without ${k}: ${evaluate({ ...best, [k]: 0 }).toFixed(4)}`);
