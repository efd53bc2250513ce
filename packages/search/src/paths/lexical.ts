import type { PostingsRead, SearchReadModel } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
import { DEFAULT_LEXICAL, S, scoreLexical, SIGNAL_COUNT, type LexicalParams, type LexicalScores, type SIGNAL_NAMES } from './bm25f.js';
import { scoreOffThread } from './lexicalThread.js';
import { RankedScores, type PathResult, type PathSignals } from './types.js';

export { best, DEFAULT_LEXICAL, kthLargest, positions, scoreLexical, type LexicalParams, type LexicalScores } from './bm25f.js';

const SAFE_TERM = /^[\p{L}\p{N}]+$/u;

/**
 * The lexical path: the items holding a query term (the read model's postings: an in-memory inverted
 * index on the embedded default, the `postings` table otherwise), scored with BM25F from the term's
 * per-field frequencies and the workspace's document frequencies; the best `params.candidates` are
 * returned, exactly as scoring every posting would return them. The path score is the BM25F score as a
 * fraction of the best score a document could get for this query, so it means the same across queries.
 *
 * MaxScore (Turtle & Flood), term at a time: a term adds at most idf * (k1 + 1) to a document's score
 * (BM25F's saturation stays below 1). Terms are scored from the rarest; once the candidates' cut score
 * is above what the terms left could add together, no document outside the candidates can reach the cut,
 * and the common terms' long lists are only searched for the candidates still in reach, instead of
 * scoring each of their postings (`bm25f.ts`). While other searches are under way (`offThread`), a read of
 * thousands of postings from the in-memory index is scored on the lexical thread (`lexicalThread.ts`): under concurrent
 * searches it was a third of the event loop's time at 100k items, with the second core partly idle.
 */
export async function lexicalPath(
  read: SearchReadModel,
  filter: ItemFilter,
  terms: string[],
  params: LexicalParams = DEFAULT_LEXICAL,
  weights?: ReadonlyMap<string, number>,
  options: { offThread?: boolean } = {},
): Promise<PathResult> {
  const started = performance.now();
  const unique = [...new Set(terms.filter((t) => SAFE_TERM.test(t)))];
  if (unique.length === 0) return { scores: new Map(), ms: 0 };
  const postings = await read.postings(filter, unique);
  // With `offThread` (other searches want this thread meanwhile), a long read is scored on the lexical
  // thread where the read's ordinals outlive it; here otherwise (a search alone would only wait for the
  // round trip), and should the thread fail.
  const offThread =
    options.offThread && postings.stable && postingsCount(postings) >= THREAD_MIN_POSTINGS
      ? await scoreOffThread(postings, postings.stable, terms, params, weights).catch(() => undefined)
      : undefined;
  const scored = offThread === undefined ? scoreLexical(postings, terms, params, weights) : offThread;
  return scored ? resultOf(postings, scored, started) : { scores: new Map(), ms: performance.now() - started };
}

/** The path's result from its scores: item ids for the thread's ordinals, and the signals' table as it is. */
function resultOf(postings: PostingsRead, scored: LexicalScores, started: number): PathResult {
  const { docs, scores, table } = scored;
  const ids = new Array<string>(docs.length);
  const top = new Array<number>(docs.length);
  for (let r = 0; r < docs.length; r++) {
    const doc = docs[r]!;
    ids[r] = postings.itemId(doc);
    top[r] = doc;
  }
  return { scores: new RankedScores(ids, scores), signals: new LexicalSignals(ids, table), docs: top, ms: performance.now() - started };
}

/** Postings in a read below which scoring it here costs less than sending it to the lexical thread. */
const THREAD_MIN_POSTINGS = 2048;

function postingsCount(postings: PostingsRead): number {
  let n = 0;
  for (const list of postings.lists) n += list.count;
  return n;
}

/**
 * The kept documents' signals, a row of `SIGNAL_COUNT` numbers each in one typed array (row r: the path's
 * r-th candidate), and a record made only for a candidate asked for. An object of ten numbers per kept
 * document (800 a search) outlived the young generation while searches waited on one another: under 16
 * clients at 100k items they were over half of what the event loop's full collections reclaimed. Fusion
 * reads two signals of each by position (`at`); the rows by id are mapped once asked for (the second stage).
 */
export class LexicalSignals implements PathSignals {
  private rowOf: Map<string, number> | null = null;

  constructor(
    private readonly ids: readonly string[],
    private readonly table: Float64Array,
  ) {}

  at(position: number, name: string): number | undefined {
    const at = S[name as (typeof SIGNAL_NAMES)[number]];
    return at === undefined || !(position >= 0 && position < this.ids.length) ? undefined : this.table[position * SIGNAL_COUNT + at];
  }

  get(id: string): Record<(typeof SIGNAL_NAMES)[number], number> | undefined {
    if (!this.rowOf) {
      this.rowOf = new Map();
      for (let r = 0; r < this.ids.length; r++) this.rowOf.set(this.ids[r]!, r);
    }
    const r = this.rowOf.get(id);
    if (r === undefined) return undefined;
    const t = this.table;
    const o = r * SIGNAL_COUNT;
    // One literal, keys in SIGNAL_NAMES' order: the second stage asks for each of its candidates' records.
    return {
      bm25Title: t[o]!,
      bm25Body: t[o + 1]!,
      bm25Paths: t[o + 2]!,
      matchedTerms: t[o + 3]!,
      titleTerms: t[o + 4]!,
      idfCovered: t[o + 5]!,
      titleIdfCovered: t[o + 6]!,
      bm25: t[o + 7]!,
      titleCoverage: t[o + 8]!,
      proximity: t[o + 9]!,
    };
  }
}
