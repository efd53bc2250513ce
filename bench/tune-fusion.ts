/**
 * `npx tsx bench/tune-fusion.ts --index <engram data dir> [--data ../shared/data/github-prettier]`
 *
 * Tunes the first-stage fusion weights (`DEFAULT_FUSION`) on the DEV queries only. Each dev query runs
 * once through the search service (`fast`, `debugCandidates`), which returns every pooled candidate
 * with its per-path scores; weights are then searched in memory (the candidate pool does not depend on
 * them) by coordinate ascent on mean nDCG@10. Prints the best weights, the default's score, and the
 * per-path ablation; never looks at the test split.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { SearchRequest } from '../packages/contracts/src/index.js';
import { createLogger, createRuntime, loadConfig } from '../packages/runtime/src/index.js';
import { DEFAULT_FUSION, fuse, recencyScore, type FusionWeights } from '../packages/search/src/fusion.js';
import { createSearchService } from '../packages/search/src/service.js';
import { DEFAULT_LEXICAL, type LexicalParams } from '../packages/search/src/paths/lexical.js';
import type { Candidate } from '../packages/search/src/rank/types.js';
import { listWorkspaces } from '../packages/stores/src/index.js';
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
const runtime = await createRuntime(loadConfig({ ENGRAM_DATA_DIR: resolve(args.index), LOG_LEVEL: 'warn' }), createLogger({ level: 'warn' }));
const workspaceId = args.workspace ?? (await listWorkspaces(runtime.db))[0]!.id;
const service = createSearchService({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder, lexical });

interface Row {
  judgement: Judgement;
  candidates: (Candidate & { datasetId: string })[];
}
const rows: Row[] = [];
const started = performance.now();
for (const q of dev) {
  const out = await service.search(workspaceId, SearchRequest.parse({ query: q.query, mode: 'fast', limit: 10, includeContext: false }), { debugCandidates: true });
  const ids = out.candidates!.map((c) => c.id);
  const urls = await runtime.db.query<{ id: string; url: string }>('SELECT id, url FROM items WHERE id = ANY($1::text[])', [ids]);
  const urlOf = new Map(urls.rows.map((r) => [r.id, r.url]));
  rows.push({
    judgement: judgementOf(q, byCommit),
    candidates: out.candidates!.map((c) => ({ ...c, datasetId: datasetIdFromUrl(urlOf.get(c.id) ?? '') ?? c.id })),
  });
}
console.error(`gathered ${rows.length} dev queries in ${Math.round((performance.now() - started) / 1000)} s`);
const now = new Date();

function evaluate(w: FusionWeights): number {
  let total = 0;
  for (const r of rows) {
    const ranked = r.candidates
      .map((c) => ({ id: c.datasetId, s: fuse(c.paths, recencyScore(c.occurredAt, now, w.recencyHalfLifeDays), w), tie: c.id }))
      .sort((a, b) => b.s - a.s || (a.tie < b.tie ? -1 : 1))
      .map((x) => x.id);
    total += ndcgAt(ranked, r.judgement, 10);
  }
  return total / rows.length;
}

const keys = ['lexical', 'vector', 'entity', 'cluster', 'actor', 'recency'] as const;
let best: FusionWeights = { ...DEFAULT_FUSION };
let bestScore = evaluate(best);
console.log(`default ${JSON.stringify(DEFAULT_FUSION)} -> dev nDCG@10 ${bestScore.toFixed(4)}`);
if (args['ablate-only']) {
  for (const k of keys) console.log(`| ${k} removed | ${evaluate({ ...DEFAULT_FUSION, [k]: 0 }).toFixed(3)} | ${(evaluate({ ...DEFAULT_FUSION, [k]: 0 }) - bestScore).toFixed(3)} |`);
  await runtime.close();
  process.exit(0);
}
for (let round = 0; round < 4; round++) {
  let improved = false;
  for (const k of keys) {
    for (const factor of [0, 0.25, 0.5, 0.75, 1.5, 2, 3]) {
      const trial = { ...best, [k]: Math.round(best[k] * factor * 1000) / 1000 || (factor === 0 ? 0 : 0.01) };
      const s = evaluate(trial);
      if (s > bestScore + 1e-4) {
        best = trial;
        bestScore = s;
        improved = true;
      }
    }
  }
  for (const hl of [30, 90, 180, 365, 730, 1460]) {
    const trial = { ...best, recencyHalfLifeDays: hl };
    const s = evaluate(trial);
    if (s > bestScore + 1e-4) {
      best = trial;
      bestScore = s;
      improved = true;
    }
  }
  if (!improved) break;
}
console.log(`best ${JSON.stringify(best)} -> dev nDCG@10 ${bestScore.toFixed(4)}`);
for (const k of keys) console.log(`without ${k}: ${evaluate({ ...best, [k]: 0 }).toFixed(4)}`);
await runtime.close();
