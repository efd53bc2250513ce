import type { Queryable } from '@engram/stores';
import { itemFilterSql, narrowsItems, type ItemFilter } from '../filters.js';
import type { StatsCache } from './stats.js';
import { timed, type PathResult } from './types.js';

/** BM25F parameters: per-field term-frequency weights before one saturation (Robertson & Zaragoza). */
export interface LexicalParams {
  k1: number;
  b: number;
  /** Weights of title (A), body (B), paths and labels (C). */
  fieldWeights: { A: number; B: number; C: number; D: number };
  /** Items returned per query: the best by BM25F among every item holding a query term. */
  candidates: number;
}

/**
 * Title weight 1.5 scored best on the dev queries among 1.5, 2.5 and 4 (bench/tune-fusion.ts). 800
 * candidates keep dev recall@100 and nDCG@10 of `fast` where 1,500 had them (0.959, 0.756; 500 loses
 * recall), and pool half as many items.
 */
export const DEFAULT_LEXICAL: LexicalParams = { k1: 1.2, b: 0.75, fieldWeights: { A: 1.5, B: 1, C: 0.6, D: 1 }, candidates: 800 };

const SAFE_TERM = /^[\p{L}\p{N}]+$/u;

/**
 * The lexical path: every item holding a query term (from the `postings` inverted index), scored with
 * BM25F from the term's per-field positions and the workspace's document frequencies; the best
 * `params.candidates` are returned. The path score is the BM25F score as a fraction of the best score a
 * document could get for this query, so it means the same across queries.
 */
export async function lexicalPath(db: Queryable, stats: StatsCache, filter: ItemFilter, terms: string[], params: LexicalParams = DEFAULT_LEXICAL): Promise<PathResult> {
  const unique = [...new Set(terms.filter((t) => SAFE_TERM.test(t)))];
  if (unique.length === 0) return { scores: new Map(), ms: 0 };
  return timed(async () => {
    const { documents, avgLength } = await stats.get(filter.workspaceId);
    const dfRes = await db.query<{ term: string; df: number }>('SELECT term, df FROM lexicon WHERE workspace_id = $1 AND term = ANY($2::text[])', [filter.workspaceId, unique]);
    const idf = new Map<string, number>();
    for (const term of unique) {
      const df = dfRes.rows.find((r) => r.term === term)?.df ?? 0;
      if (df > 0) idf.set(term, Math.log(1 + (documents - df + 0.5) / (df + 0.5)));
    }
    const present = [...idf.keys()];
    if (present.length === 0) return { scores: new Map() };
    // Postings of the query's terms, every item that holds one: exact BM25F over all of them, then the best kept.
    const where = itemFilterSql(filter, 3);
    const narrowed = narrowsItems(filter);
    const res = await db.query<PostingRow>(
      narrowed
        ? `SELECT p.item_id AS id, p.dl, p.term AS lexeme, p.positions, p.weights FROM postings p JOIN items i ON i.id = p.item_id
           WHERE p.workspace_id = $1 AND p.term = ANY($2::text[]) AND ${where.sql}`
        : 'SELECT item_id AS id, dl, term AS lexeme, positions, weights FROM postings WHERE workspace_id = $1 AND term = ANY($2::text[])',
      narrowed ? [filter.workspaceId, present, ...where.params] : [filter.workspaceId, present],
    );
    const pairs = queryPairs(terms, idf);
    const positionsOf = new Map<string, Map<string, number[]>>();
    const { k1, b, fieldWeights } = params;
    const raw = new Map<string, number>();
    const signals = new Map<string, Record<string, number>>();
    for (const row of res.rows) {
      const weights = weightsOf(row);
      if (pairs.length > 0) {
        const positions = typeof row.positions === 'string' ? row.positions.replace(/[{}]/g, '').split(',').map(Number) : row.positions.map(Number);
        const byLexeme = positionsOf.get(row.id) ?? new Map<string, number[]>();
        byLexeme.set(row.lexeme, positions);
        positionsOf.set(row.id, byLexeme);
      }
      const tf = { A: 0, B: 0, C: 0, D: 0 };
      for (const w of weights) tf[(w as keyof typeof tf) in tf ? (w as keyof typeof tf) : 'D']++;
      const weighted = tf.A * fieldWeights.A + tf.B * fieldWeights.B + tf.C * fieldWeights.C + tf.D * fieldWeights.D;
      const norm = k1 * (1 - b + (b * Math.max(1, row.dl)) / avgLength);
      const termIdf = idf.get(row.lexeme) ?? 0;
      raw.set(row.id, (raw.get(row.id) ?? 0) + (termIdf * weighted * (k1 + 1)) / (weighted + norm));
      const s = signals.get(row.id) ?? { bm25Title: 0, bm25Body: 0, bm25Paths: 0, matchedTerms: 0, titleTerms: 0, idfCovered: 0, titleIdfCovered: 0 };
      s.bm25Title! += tf.A > 0 ? (termIdf * tf.A * (k1 + 1)) / (tf.A + k1) : 0;
      s.bm25Body! += tf.B > 0 ? (termIdf * tf.B * (k1 + 1)) / (tf.B + norm) : 0;
      s.bm25Paths! += tf.C > 0 ? (termIdf * tf.C * (k1 + 1)) / (tf.C + k1) : 0;
      s.matchedTerms! += 1;
      s.titleTerms! += tf.A > 0 ? 1 : 0;
      s.idfCovered! += termIdf;
      s.titleIdfCovered! += tf.A > 0 ? termIdf : 0;
      signals.set(row.id, s);
    }
    const idfSum = [...idf.values()].reduce((a, x) => a + x, 0);
    const ideal = idfSum * (k1 + 1);
    const scores = new Map<string, number>();
    const keptSignals = new Map<string, Record<string, number>>();
    for (const [id, score] of best(raw, Math.floor(params.candidates))) {
      scores.set(id, Math.min(1, score / ideal));
      const s = signals.get(id)!;
      keptSignals.set(id, s);
      s.bm25 = score;
      s.idfCovered = s.idfCovered! / idfSum;
      s.titleIdfCovered = s.titleIdfCovered! / idfSum;
      s.titleCoverage = s.titleTerms! / present.length;
      s.proximity = proximity(pairs, positionsOf.get(id));
    }
    return { scores, signals: keptSignals };
  });
}

interface PostingRow {
  id: string;
  dl: number;
  lexeme: string;
  positions: number[] | string;
  weights: string[] | string;
}

const weightsOf = (row: PostingRow): string[] => (typeof row.weights === 'string' ? row.weights.replace(/[{}]/g, '').split(',') : row.weights);

/** The `limit` highest-scoring entries (ties by id), or all of them. */
function best(raw: ReadonlyMap<string, number>, limit: number): [string, number][] {
  const all = [...raw];
  if (all.length <= limit) return all;
  return all.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, limit);
}

/** Two query terms next to each other in the query (stop words already gone), weighted by the rarer one. */
interface TermPair {
  a: string;
  b: string;
  weight: number;
}

function queryPairs(terms: readonly string[], idf: ReadonlyMap<string, number>): TermPair[] {
  const pairs = new Map<string, TermPair>();
  for (let i = 1; i < terms.length; i++) {
    const a = terms[i - 1]!;
    const b = terms[i]!;
    const ia = idf.get(a);
    const ib = idf.get(b);
    if (a === b || ia === undefined || ib === undefined) continue;
    pairs.set(`${a} ${b}`, { a, b, weight: Math.min(ia, ib) });
  }
  return [...pairs.values()];
}

/** Terms this close (in tokens, either order) in the item count as the query's pair: "type assertion" ~ "assertion of type". */
const PROXIMITY_WINDOW = 2;

/**
 * Share of the query's adjacent term pairs (idf-weighted) that also sit within PROXIMITY_WINDOW tokens of
 * each other somewhere in the item: the phrase evidence BM25's bag of words misses. 0 for a one-term query.
 */
function proximity(pairs: readonly TermPair[], positions: ReadonlyMap<string, number[]> | undefined): number {
  if (pairs.length === 0 || !positions) return 0;
  let hit = 0;
  let total = 0;
  for (const { a, b, weight } of pairs) {
    total += weight;
    const pa = positions.get(a);
    const pb = positions.get(b);
    if (pa && pb && near(pa, pb)) hit += weight;
  }
  return total > 0 ? hit / total : 0;
}

/** Whether two sorted position lists have entries within the window: a merge walk, linear in their lengths. */
function near(pa: readonly number[], pb: readonly number[]): boolean {
  let i = 0;
  let j = 0;
  while (i < pa.length && j < pb.length) {
    const d = pa[i]! - pb[j]!;
    if (d !== 0 && Math.abs(d) <= PROXIMITY_WINDOW) return true;
    if (d < 0) i++;
    else j++;
  }
  return false;
}
