import type { SearchMode } from '@engram/contracts';
import type { Candidate, Reranker } from '../rank/types.js';
import type { Scored } from './types.js';

/** Candidates the second stage reorders; fixed, so the ranking does not depend on the page asked for. */
export const RERANK_DEPTH = 100;
/** Candidates the LLM judges in `thorough`. */
export const LLM_DEPTH = 20;

export interface SecondStageOutcome {
  ranked: Scored[];
  /** The mode that actually ran (a missing or failed model falls back; the query service says why). */
  mode: SearchMode;
}

/**
 * Stage 3, the second stage: `balanced` rescores the first `depth` candidates with the reranker,
 * `thorough` then has the LLM rescore the first LLM_DEPTH; `fast` keeps the fused order. `signal` cancels
 * both calls; an aborted search throws instead of falling back.
 */
export async function secondStage(
  deps: { reranker?: Reranker; llm?: Reranker; depth: number; signal?: AbortSignal },
  query: string,
  fused: readonly Candidate[],
  requested: SearchMode,
): Promise<SecondStageOutcome> {
  let mode: SearchMode = requested;
  let ranked: Scored[] = fused.map((c) => ({ c, score: c.fused }));
  const options = { signal: deps.signal };
  if (requested !== 'fast' && deps.reranker && ranked.length > 0) {
    ranked = await rerankTop(ranked, deps.depth, (cs) => deps.reranker!.rerank(query, cs, options));
  } else if (requested !== 'fast') {
    mode = 'fast';
  }
  if (requested === 'thorough') {
    if (deps.llm && ranked.length > 0) {
      try {
        const head = ranked.slice(0, LLM_DEPTH).map((r) => ({ ...r.c, fused: r.score }));
        ranked = await rerankTop(ranked, LLM_DEPTH, () => deps.llm!.rerank(query, head, options));
        mode = 'thorough';
      } catch (error) {
        if (deps.signal?.aborted) throw error;
        mode = deps.reranker ? 'balanced' : 'fast';
      }
    } else {
      mode = deps.reranker ? 'balanced' : 'fast';
    }
  }
  return { ranked, mode };
}

/**
 * Rescores the first `depth` entries and keeps them above the rest; the rest keep their order and are
 * scaled below the lowest rescored score, so scores stay monotone with rank and in [0, 1].
 */
async function rerankTop(ranked: Scored[], depth: number, score: (cs: Candidate[]) => Promise<number[]>): Promise<Scored[]> {
  const head = ranked.slice(0, depth);
  const tail = ranked.slice(depth);
  const scores = await score(head.map((r) => r.c));
  const rescored = head
    .map((r, i) => ({ c: r.c, score: Math.max(0, Math.min(1, scores[i] ?? 0)) }))
    .sort((a, b) => b.score - a.score || (a.c.id < b.c.id ? -1 : a.c.id > b.c.id ? 1 : 0));
  const floor = rescored.length ? rescored[rescored.length - 1]!.score : 1;
  const tailMax = tail.length ? tail[0]!.score : 1;
  const scale = tailMax > 0 ? (floor * 0.99) / tailMax : 0;
  return [...rescored, ...tail.map((r) => ({ c: r.c, score: Math.min(r.score, r.score * scale) }))];
}
