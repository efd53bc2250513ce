/**
 * Runs a ranking system over judged queries and keeps per-query scores (in query order, so two runs
 * over the same queries pair up for the bootstrap) and per-query latencies.
 */
import { mapLimit } from './concurrency.js';
import type { Query } from './dataset.js';
import { scoreQuery, type Judgement, type QueryScores } from './metrics.js';

export interface RankedAnswer {
  /** Dataset ids, best first. */
  ids: string[];
  /** Latency the system reports for itself (server side), when it does. */
  reportedMs?: number;
}

/** A system under evaluation: query text and depth in, a ranked answer out. */
export type SearchSystem = (query: string, limit: number) => Promise<RankedAnswer>;

export interface SystemRun {
  name: string;
  scores: QueryScores[];
  /** Wall-clock time per query, as the client saw it. */
  latencyMs: number[];
  reportedMs: number[];
}

/** The text sent for a query: the release-note line, as a person would type it. */
export const queryText = (query: Query): string => query.query;

/**
 * Scores one system. nDCG/MRR/recall@10 and latency come from a call with limit 10; recall@100 from a
 * second call with limit 100 when `deepCall` is set (a reranking mode may order its top 10 differently
 * when asked for 100), else from the top 100 of one call.
 */
export async function runSystem(
  name: string,
  search: SearchSystem,
  queries: readonly Query[],
  judgements: ReadonlyMap<string, Judgement>,
  options: { deepCall?: boolean; concurrency?: number } = {},
): Promise<SystemRun> {
  const { deepCall = false, concurrency = 1 } = options;
  const answers = await mapLimit(queries, concurrency, async (query) => {
    const started = performance.now();
    const answer = await search(queryText(query), deepCall ? 10 : 100);
    const elapsed = performance.now() - started;
    const deep = deepCall ? await search(queryText(query), 100) : answer;
    return { answer, deep, elapsed };
  });
  return {
    name,
    scores: queries.map((query, i) => {
      const { answer, deep } = answers[i]!;
      const judgement = judgements.get(query.id)!;
      return { ...scoreQuery(answer.ids, judgement), recall100: scoreQuery(deep.ids, judgement).recall100 };
    }),
    latencyMs: answers.map((a) => a.elapsed),
    reportedMs: answers.flatMap((a) => (a.answer.reportedMs === undefined ? [] : [a.answer.reportedMs])),
  };
}
