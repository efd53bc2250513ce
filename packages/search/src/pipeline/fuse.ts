import type { Db, SearchReadModel } from '@engram/stores';
import { areaTitleLift, type AreaModelReader } from '../areaLift.js';
import { FUSION_SIGNAL_COUNT, loadItems, MAX_RESULTS, PATH_COUNT, poolCandidates, pooledSignals, toCandidate, type ItemRow, type Pooled } from '../candidates.js';
import { best, positions } from '../paths/lexical.js';
import { fuseAt, fusionSignalsInto, recencyScore, type FusionSignals, type FusionWeights } from '../fusion.js';
import type { Candidate } from '../rank/types.js';
import type { Question, Retrieved } from './types.js';

export interface Fused {
  /** Every pooled candidate, best fused score first. */
  candidates: Candidate[];
  /** Text of the candidates that the second stage or the page reads. */
  rows: Map<string, ItemRow>;
  areasMs?: number;
}

/** Descending by score, ties by id: a total order, so pages never overlap or skip. */
export function byScore<T extends { id: string }>(score: (t: T) => number) {
  return (a: T, b: T) => score(b) - score(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Stage 2, fuse: the paths' candidates pooled into one list (a PR and its commits are one change),
 * scored by the weighted blend of path scores and signals, cut at MAX_RESULTS results (the list pages
 * are cut from, whose length is `total`), and the text read for the first `textDepth`.
 * With `areas`, the candidates the second stage reads get the area signal (`areaTitleLift`). Without
 * `signals` (`fast`: no second stage reads them) the candidates carry no signals.
 */
export async function fuseCandidates(
  deps: { db: Db; read: SearchReadModel; fusion: FusionWeights; now: Date },
  q: Question,
  retrieved: Retrieved,
  options: { textDepth: number; signals: boolean; areas?: { model: AreaModelReader; depth: number } },
): Promise<Fused> {
  const pool = await poolCandidates(deps.read, q.filter, retrieved.paths);
  let fusedPool: { id: string; p: Pooled; fused: number }[];
  try {
    // The signals fusion reads, for every pooled result, from the pool's columns (two objects reused: the
    // rest are merged for the survivors only).
    const evidence = { proximity: 0, idfCovered: 0 };
    const signals: FusionSignals = { recency: 0, proximity: 0, termCoverage: 0 };
    const fused = new Float64Array(pool.size);
    for (let r = 0; r < pool.size; r++) {
      const row = pool.rows[r]!;
      const recency = recencyScore(row.occurredAt, deps.now, deps.fusion.recencyHalfLifeDays);
      evidence.proximity = pool.fusionSignals[r * FUSION_SIGNAL_COUNT]!;
      evidence.idfCovered = pool.fusionSignals[r * FUSION_SIGNAL_COUNT + 1]!;
      fused[r] = fuseAt(pool.scores, r * PATH_COUNT, fusionSignalsInto(evidence, recency, signals), deps.fusion);
    }
    fusedPool = bestFused(fused, MAX_RESULTS, (r) => pool.rows[r]!.id).map((r) => ({ id: pool.rows[r]!.id, p: pool.result(r), fused: fused[r]! }));
  } finally {
    pool.release();
  }
  const rows = await loadItems(deps.db, q.workspaceId, fusedPool.slice(0, options.textDepth).map((c) => c.id));
  const candidates = fusedPool.map((c) => toCandidate({ row: c.p.row, paths: c.p.paths, signals: options.signals ? pooledSignals(c.p, retrieved.paths) : null }, rows.get(c.id), c.fused, deps.now));
  if (!options.areas) return { candidates, rows };
  // The learned reranker's one signal that reads beyond the candidate: its area's titles.
  const started = performance.now();
  const subjects = candidates.slice(0, options.areas.depth).flatMap((c) => {
    const row = rows.get(c.id);
    return row ? [{ id: c.id, title: row.title ?? '', files: row.files }] : [];
  });
  const lift = await areaTitleLift(options.areas.model, q.workspaceId, q.topic, subjects);
  for (const c of candidates) c.signals.areaTitleLift = lift.get(c.id) ?? 0;
  return { candidates, rows, areasMs: performance.now() - started };
}

/**
 * The positions of the `limit` best fused scores, ties by id: what sorting them all and keeping the first
 * `limit` gives, with only those sorted (the pool is some 1,400 results at 100k items, the list 200); the
 * lexical path's cut (`best`) over their positions.
 */
export function bestFused(fused: Float64Array, limit: number, idOf: (position: number) => string): number[] {
  return best(fused, positions(fused.length), limit, idOf);
}
