import type { Queryable } from '@engram/stores';
import { itemFilterSql, type ItemFilter } from '../filters.js';
import type { StatsCache } from './stats.js';
import { timed, type PathResult } from './types.js';

/** BM25F parameters: per-field term-frequency weights before one saturation (Robertson & Zaragoza). */
export interface LexicalParams {
  k1: number;
  b: number;
  /** Weights of title (A), body (B), paths and labels (C). */
  fieldWeights: { A: number; B: number; C: number; D: number };
  /** Documents scored exactly per query (the best by Postgres `ts_rank` among all matches). */
  candidates: number;
}

/** Title weight 1.5 scored best on the dev queries among 1.5, 2.5 and 4 (bench/tune-fusion.ts). */
export const DEFAULT_LEXICAL: LexicalParams = { k1: 1.2, b: 0.75, fieldWeights: { A: 1.5, B: 1, C: 0.6, D: 1 }, candidates: 1500 };

const SAFE_TERM = /^[\p{L}\p{N}]+$/u;

/**
 * The lexical path: candidates from the GIN full-text index (any query term), scored with BM25F from
 * the per-field positions in each item's tsvector and the workspace's document frequencies. The path
 * score is the BM25F score as a fraction of the best score a document could get for this query, so it
 * means the same across queries.
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
    const query = present.map((t) => `'${t}'`).join(' | ');
    const where = itemFilterSql(filter, 3);
    const res = await db.query<{ id: string; dl: number; lexeme: string; weights: string[] | string }>(
      `WITH c AS (
         SELECT i.id, i.lexical_length AS dl, i.search_vector FROM items i
         WHERE ${where.sql} AND i.search_vector @@ to_tsquery('simple', $1)
         ORDER BY ts_rank(i.search_vector, to_tsquery('simple', $1)) DESC, i.id LIMIT ${Math.floor(params.candidates)})
       SELECT c.id, c.dl, u.lexeme, u.weights FROM c, unnest(c.search_vector) AS u(lexeme, positions, weights)
       WHERE u.lexeme = ANY($2::text[])`,
      [query, present, ...where.params],
    );
    const { k1, b, fieldWeights } = params;
    const raw = new Map<string, number>();
    const signals = new Map<string, Record<string, number>>();
    for (const row of res.rows) {
      const weights = typeof row.weights === 'string' ? row.weights.replace(/[{}]/g, '').split(',') : row.weights;
      const tf = { A: 0, B: 0, C: 0, D: 0 };
      for (const w of weights) tf[(w as keyof typeof tf) in tf ? (w as keyof typeof tf) : 'D']++;
      const weighted = tf.A * fieldWeights.A + tf.B * fieldWeights.B + tf.C * fieldWeights.C + tf.D * fieldWeights.D;
      const norm = k1 * (1 - b + (b * Math.max(1, row.dl)) / avgLength);
      const termIdf = idf.get(row.lexeme) ?? 0;
      raw.set(row.id, (raw.get(row.id) ?? 0) + (termIdf * weighted * (k1 + 1)) / (weighted + norm));
      const s = signals.get(row.id) ?? { bm25Title: 0, bm25Body: 0, bm25Paths: 0, matchedTerms: 0, titleTerms: 0, idfCovered: 0 };
      s.bm25Title! += tf.A > 0 ? (termIdf * tf.A * (k1 + 1)) / (tf.A + k1) : 0;
      s.bm25Body! += tf.B > 0 ? (termIdf * tf.B * (k1 + 1)) / (tf.B + norm) : 0;
      s.bm25Paths! += tf.C > 0 ? (termIdf * tf.C * (k1 + 1)) / (tf.C + k1) : 0;
      s.matchedTerms! += 1;
      s.titleTerms! += tf.A > 0 ? 1 : 0;
      s.idfCovered! += termIdf;
      signals.set(row.id, s);
    }
    const idfSum = [...idf.values()].reduce((a, x) => a + x, 0);
    const ideal = idfSum * (k1 + 1);
    const scores = new Map<string, number>();
    for (const [id, score] of raw) {
      scores.set(id, Math.min(1, score / ideal));
      const s = signals.get(id)!;
      s.bm25 = score;
      s.idfCovered = s.idfCovered! / idfSum;
      s.titleCoverage = s.titleTerms! / present.length;
    }
    return { scores, signals };
  });
}
