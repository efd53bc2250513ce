/**
 * BM25F over a read's postings (the lexical path's scoring, `lexical.ts`), synchronous and on the read's
 * arrays alone: the event loop runs it, and so does the lexical thread (`lexicalThread.ts`), which loads
 * this module and nothing of the stores.
 */
import type { PostingList, PostingsRead } from '@engram/stores';

/** BM25F parameters: per-field term-frequency weights before one saturation (Robertson & Zaragoza). */
export interface LexicalParams {
  k1: number;
  b: number;
  /** Weights of title (A), body (B), paths and labels (C), and the words of camelCase identifiers in any of them (D). */
  fieldWeights: { A: number; B: number; C: number; D: number };
  /** Items returned per query: the best by BM25F among every item holding a query term. */
  candidates: number;
}

/**
 * A camelCase word (`new` of `NewExpression`, field D) weighs a third of a body word: enough that "method
 * signature" still finds `TSMethodSignature`, too little for "new" alone to make a `NewExpression` change
 * look like it is about something new. Title weight 1.5 scored best on the dev queries among 1.5, 2.5 and 4 (bench/tune-fusion.ts). 800
 * candidates keep dev recall@100 and nDCG@10 of `fast` where 1,500 had them (0.959, 0.756; 500 loses
 * recall), and pool half as many items.
 */
export const DEFAULT_LEXICAL: LexicalParams = { k1: 1.2, b: 0.75, fieldWeights: { A: 1.5, B: 1, C: 0.6, D: 0.35 }, candidates: 800 };


/**
 * What the lexical path keeps of a read: the best documents (ordinals of the read, best first), each
 * one's score as a share of the query's ideal score, and its signals (a row of `SIGNAL_COUNT` a document).
 */
export interface LexicalScores {
  docs: Int32Array;
  scores: Float64Array;
  table: Float64Array;
}

/**
 * BM25F over a read's postings, MaxScore term at a time (see `lexicalPath`): the best `params.candidates`
 * documents with their signals, or null when the workspace holds none of the terms. Synchronous and on
 * the read's arrays alone, so that the lexical thread runs the same code.
 */
export function scoreLexical(postings: PostingsRead, terms: readonly string[], params: LexicalParams, weights?: ReadonlyMap<string, number>): LexicalScores | null {
  const { documents, avgLength } = postings;
  const idf = new Map<string, number>();
  // A term's weight (default 1) scales its idf, so everything built on idf follows: its share of the
  // score and of the ideal score, of term coverage, and of the proximity pairs it is in.
  for (const list of postings.lists) if (list.df > 0) idf.set(list.term, (weights?.get(list.term) ?? 1) * Math.log(1 + (documents - list.df + 0.5) / (list.df + 0.5)));
  const present = [...idf.keys()];
  if (present.length === 0) return null;
  const { k1, b, fieldWeights } = params;
  const limit = Math.floor(params.candidates);
  // Term at a time over typed arrays: one score slot per document ordinal (reused across searches: the loop
  // below never awaits), and the list of documents touched. Per-field signals are computed afterwards for
  // the kept documents only, so the work per posting is a few multiply-adds whatever the corpus size.
  let maxDoc = -1;
  for (const list of postings.lists) if (list.count > 0) maxDoc = Math.max(maxDoc, list.docs[list.count - 1]!);
  const pad = scratch(maxDoc + 1);
  const { acc, seen } = pad;
  pad.touchedCount = 0;
  pad.rejectedCount = 0;
  const normOf = (doc: number): number => lengthNorm(k1, b, postings.docLength(doc), avgLength);
  // Rarest (highest bound) first; `rest` is what the terms not yet scored could add together.
  const ordered = postings.lists.filter((l) => idf.has(l.term)).sort((x, y) => idf.get(y.term)! - idf.get(x.term)!);
  let rest = ordered.reduce((sum, l) => sum + idf.get(l.term)! * (k1 + 1), 0);
  try {
    let next = 0;
    let cut = -Infinity;
    for (; next < ordered.length; next++) {
      // The cut (the limit-th best score so far) only rises; once `limit` documents score above what the
      // terms left could add, it is above that too. Counting them is one pass; the cut itself is
      // selected once, when the loop stops.
      if (pad.touchedCount >= limit && limit > 0 && countAbove(acc, pad.touched, pad.touchedCount, rest) >= limit) {
        cut = kthLargest(valuesOf(acc, pad.touched, pad.touchedCount), limit);
        break;
      }
      const list = ordered[next]!;
      const termIdf = idf.get(list.term)!;
      rest -= termIdf * (k1 + 1);
      scoreList(list, termIdf, fieldWeights, k1, b, avgLength, postings, pad);
    }
    let kept: ArrayLike<number> = pad.touched.subarray(0, pad.touchedCount);
    if (next < ordered.length) kept = finishCandidates(ordered.slice(next), idf, pad, cut, rest, fieldWeights, k1);
    const { lists } = postings;
    const pairs = queryPairs(terms, idf, lists);
    // Each list's idf by position (-1: a term the workspace does not hold).
    const idfOf = Float64Array.from(lists, (l) => idf.get(l.term) ?? -1);
    const idfSum = [...idf.values()].reduce((a, x) => a + x, 0);
    const ideal = idfSum * (k1 + 1);
    const top = best(acc, kept, limit, postings.itemId);
    const scores = new Float64Array(top.length);
    const table = new Float64Array(top.length * SIGNAL_COUNT);
    // Each kept document's posting in each list, found by one galloping pass per list over the kept
    // documents in ascending order (not a binary search per document and list).
    const at = postingsOf(lists, top);
    for (let r = 0; r < top.length; r++) {
      const doc = top[r]!;
      const score = acc[doc]!;
      scores[r] = Math.min(1, score / ideal);
      const row = r * SIGNAL_COUNT;
      fieldSignals(table, row, lists, at, top.length, r, idfOf, k1, normOf(doc), idfSum, present.length);
      table[row + S.bm25] = score;
      table[row + S.proximity] = proximity(pairs, lists, at, top.length, r);
    }
    return { docs: Int32Array.from(top), scores, table };
  } finally {
    for (let i = 0; i < pad.touchedCount; i++) {
      const doc = pad.touched[i]!;
      acc[doc] = 0;
      seen[doc] = 0;
    }
    for (let i = 0; i < pad.rejectedCount; i++) seen[pad.rejected[i]!] = 0;
  }
}

/**
 * One term's postings added to the documents' scores (`pad.acc`), term at a time. A document's admission
 * and length norm are read once, at its first posting (`seen` 1: admitted, 2: not); it joins `touched` or
 * `rejected` then. A function of its own, so that the per-posting loop is compiled on its own.
 */
function scoreList(
  list: PostingList,
  termIdf: number,
  weights: LexicalParams['fieldWeights'],
  k1: number,
  b: number,
  avgLength: number,
  postings: Pick<PostingsRead, 'admits' | 'docLength'>,
  pad: typeof slots,
): void {
  const { docs, fields, count } = list;
  const { acc, seen, norm, touched, rejected } = pad;
  let touchedCount = pad.touchedCount;
  let rejectedCount = pad.rejectedCount;
  for (let p = 0; p < count; p++) {
    const doc = docs[p]!;
    const state = seen[doc]!;
    if (state === 2) continue;
    if (state === 0) {
      if (!postings.admits(doc)) {
        seen[doc] = 2;
        rejected[rejectedCount++] = doc;
        continue;
      }
      seen[doc] = 1;
      norm[doc] = lengthNorm(k1, b, postings.docLength(doc), avgLength);
      touched[touchedCount++] = doc;
    }
    acc[doc] = acc[doc]! + contribution(termIdf, fields[p]!, norm[doc]!, weights, k1);
  }
  pad.touchedCount = touchedCount;
  pad.rejectedCount = rejectedCount;
}

/** BM25's length normalisation of a document of `length` tokens, k1 included. */
const lengthNorm = (k1: number, b: number, length: number, avgLength: number): number => k1 * (1 - b + (b * Math.max(1, length)) / avgLength);

/** BM25F: one term's share of a document's score, from its packed per-field frequencies and the document's length norm. */
function contribution(termIdf: number, packed: number, norm: number, weights: LexicalParams['fieldWeights'], k1: number): number {
  const weighted = (packed & 0xff) * weights.A + ((packed >>> 8) & 0xff) * weights.B + ((packed >>> 16) & 0xff) * weights.C + (packed >>> 24) * weights.D;
  return (termIdf * weighted * (k1 + 1)) / (weighted + norm);
}

/** How many of the touched documents score above `floor`. */
function countAbove(acc: Float64Array, touched: Int32Array, count: number, floor: number): number {
  let n = 0;
  for (let i = 0; i < count; i++) if (acc[touched[i]!]! > floor) n++;
  return n;
}

/**
 * MaxScore's second half: the touched documents whose score could still reach the cut (the cut less what
 * the remaining terms could add, `rest`) get those terms' contributions, found by galloping through each
 * remaining list from the last hit (or by one pass over a list shorter than the candidates' search would
 * be). After each list, what the lists left could add shrinks, and the documents that can no longer reach
 * the cut are dropped before the next: at least `limit` documents already score the cut, so none of them
 * could be among the best. Returns the candidates, ascending.
 */
function finishCandidates(
  remaining: readonly PostingList[],
  idf: ReadonlyMap<string, number>,
  pad: typeof slots,
  cut: number,
  rest: number,
  weights: LexicalParams['fieldWeights'],
  k1: number,
): Int32Array {
  const { acc, seen, norm } = pad;
  let n = 0;
  const candidates = pad.candidates;
  let floor = cut - rest;
  for (let i = 0; i < pad.touchedCount; i++) {
    const doc = pad.touched[i]!;
    if (acc[doc]! >= floor) candidates[n++] = doc;
  }
  candidates.subarray(0, n).sort();
  for (const list of remaining) {
    const termIdf = idf.get(list.term)!;
    const { docs, fields, count } = list;
    if (n * Math.log2(count + 2) >= count) {
      for (let i = 0; i < n; i++) seen[candidates[i]!] = 3;
      for (let p = 0; p < count; p++) {
        const doc = docs[p]!;
        if (seen[doc] === 3) acc[doc] = acc[doc]! + contribution(termIdf, fields[p]!, norm[doc]!, weights, k1);
      }
      for (let i = 0; i < n; i++) seen[candidates[i]!] = 1;
    } else {
      let p = 0;
      for (let i = 0; i < n && p < count; i++) {
        const doc = candidates[i]!;
        p = gallop(docs, count, p, doc);
        if (p < count && docs[p] === doc) acc[doc] = acc[doc]! + contribution(termIdf, fields[p]!, norm[doc]!, weights, k1);
      }
    }
    // (Never below 0: the bounds' rounding must not lift the floor above the cut.)
    rest = Math.max(0, rest - termIdf * (k1 + 1));
    floor = cut - rest;
    let out = 0;
    for (let i = 0; i < n; i++) {
      const doc = candidates[i]!;
      if (acc[doc]! >= floor) candidates[out++] = doc;
    }
    n = out;
  }
  return candidates.subarray(0, n);
}

/** The first index at or after `from` whose document is >= `doc` (`count` if none): doubling steps, then a binary search. */
function gallop(docs: Int32Array, count: number, from: number, doc: number): number {
  if (from >= count || docs[from]! >= doc) return from;
  let lo = from;
  let step = 1;
  while (lo + step < count && docs[lo + step]! < doc) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(lo + step, count);
  // docs[lo] < doc, and docs[hi] >= doc (or hi = count).
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < doc) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The touched documents' scores, copied into scratch space for a selection. */
function valuesOf(acc: Float64Array, touched: Int32Array, count: number): Float64Array {
  const values = slots.values.subarray(0, count);
  for (let i = 0; i < count; i++) values[i] = acc[touched[i]!]!;
  return values;
}

/**
 * One score slot per document ordinal, zeroed between searches, and the lists of documents a search
 * touched and turned away (a common word touches tens of thousands at 100k items: no array grown per
 * search); grown (never shrunk) as workspaces grow.
 */
const sized = (n: number) => ({
  acc: new Float64Array(n),
  seen: new Uint8Array(n),
  norm: new Float64Array(n),
  values: new Float64Array(n),
  touched: new Int32Array(n),
  rejected: new Int32Array(n),
  candidates: new Int32Array(n),
  /** A kept document's row among the kept (`postingsOf`). */
  rowOfDoc: new Int32Array(n),
  /** Entries of `touched` and `rejected` in use (the search's, while it runs). */
  touchedCount: 0,
  rejectedCount: 0,
});
let slots = sized(1 << 14);
function scratch(size: number): typeof slots {
  if (size > slots.acc.length) slots = sized(Math.max(size, slots.acc.length * 2));
  return slots;
}

/** 0 .. n - 1 (an array filled by a loop: `Array.from(keys())` makes an iterator result per element). */
export function positions(n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/**
 * Where each of `docs` (any order) sits in each list: `at[l * docs.length + r]` is the posting of
 * `docs[r]` in `lists[l]`, or -1. One pass per list, galloping over the documents in ascending order.
 */
function postingsOf(lists: readonly PostingList[], docs: readonly number[]): Int32Array {
  const n = docs.length;
  const at = new Int32Array(lists.length * n).fill(-1);
  // The documents in ascending order (a native sort of their ordinals), and each one's row.
  const ascending = Int32Array.from(docs).sort();
  const { rowOfDoc } = slots;
  for (let r = 0; r < n; r++) rowOfDoc[docs[r]!] = r;
  for (let l = 0; l < lists.length; l++) {
    const list = lists[l]!;
    let p = 0;
    for (let i = 0; i < n && p < list.count; i++) {
      const doc = ascending[i]!;
      p = gallop(list.docs, list.count, p, doc);
      if (p < list.count && list.docs[p] === doc) at[l * n + rowOfDoc[doc]!] = p;
    }
  }
  return at;
}

/**
 * The lexical signals of a kept document, in this order (the order of a candidate's record): the per-field
 * BM25 parts, terms matched and in the title, the idf share covered (in all, and by the title), then BM25F
 * itself, the share of query terms in the title, and the phrase evidence.
 */
export const SIGNAL_NAMES = ['bm25Title', 'bm25Body', 'bm25Paths', 'matchedTerms', 'titleTerms', 'idfCovered', 'titleIdfCovered', 'bm25', 'titleCoverage', 'proximity'] as const;
export const SIGNAL_COUNT = SIGNAL_NAMES.length;
export const S = Object.fromEntries(SIGNAL_NAMES.map((name, i) => [name, i])) as Record<(typeof SIGNAL_NAMES)[number], number>;


/**
 * Kept document `r` (of `n`)'s per-field BM25 parts and term coverage (as shares of the query's idf sum and
 * of its `terms` held by the workspace), from its postings (`postingsOf`), list by list, into its row of
 * `table`, which starts at `row`.
 */
function fieldSignals(
  table: Float64Array,
  row: number,
  lists: readonly PostingList[],
  at: Int32Array,
  n: number,
  r: number,
  idfOf: Float64Array,
  // (Numbers, not an options object: one object a kept document, 800 a search, was most of what this path allocated.)
  k1: number,
  norm: number,
  idfSum: number,
  terms: number,
): void {
  let bm25Title = 0;
  let bm25Body = 0;
  let bm25Paths = 0;
  let matchedTerms = 0;
  let titleTerms = 0;
  let idfCovered = 0;
  let titleIdfCovered = 0;
  for (let l = 0; l < lists.length; l++) {
    const termIdf = idfOf[l]!;
    const p = at[l * n + r]!;
    if (termIdf < 0 || p < 0) continue;
    const packed = lists[l]!.fields[p]!;
    const tfA = packed & 0xff;
    const tfB = (packed >>> 8) & 0xff;
    const tfC = (packed >>> 16) & 0xff;
    bm25Title += tfA > 0 ? (termIdf * tfA * (k1 + 1)) / (tfA + k1) : 0;
    bm25Body += tfB > 0 ? (termIdf * tfB * (k1 + 1)) / (tfB + norm) : 0;
    bm25Paths += tfC > 0 ? (termIdf * tfC * (k1 + 1)) / (tfC + k1) : 0;
    matchedTerms += 1;
    titleTerms += tfA > 0 ? 1 : 0;
    idfCovered += termIdf;
    titleIdfCovered += tfA > 0 ? termIdf : 0;
  }
  table[row + S.bm25Title] = bm25Title;
  table[row + S.bm25Body] = bm25Body;
  table[row + S.bm25Paths] = bm25Paths;
  table[row + S.matchedTerms] = matchedTerms;
  table[row + S.titleTerms] = titleTerms;
  table[row + S.idfCovered] = idfCovered / idfSum;
  table[row + S.titleIdfCovered] = titleIdfCovered / idfSum;
  table[row + S.titleCoverage] = titleTerms / terms;
}

/**
 * The `limit` highest-scoring of the touched documents (`acc` holds each one's score), best first, ties
 * by item id. The lexical and entity paths' cut.
 */
export function best(acc: Float64Array, touched: ArrayLike<number>, limit: number, idOf: (doc: number) => string): number[] {
  const byScore = (x: number, y: number) => acc[y]! - acc[x]! || (idOf(x) < idOf(y) ? -1 : 1);
  if (touched.length <= limit) {
    const all = new Array<number>(touched.length);
    for (let i = 0; i < touched.length; i++) all[i] = touched[i]!;
    return all.sort(byScore);
  }
  // Partial selection: the limit-th best score is the threshold (found in linear time: at 100k items a
  // common word touches tens of thousands of documents), and only what reaches it is sorted. Documents
  // at the threshold are often thousands (one common word, the same length): they are ordered by id
  // alone, and only as many as are needed.
  const values = touched.length <= slots.values.length ? slots.values.subarray(0, touched.length) : new Float64Array(touched.length);
  for (let i = 0; i < touched.length; i++) values[i] = acc[touched[i]!]!;
  const threshold = kthLargest(values, limit);
  const above: number[] = [];
  const ties: number[] = [];
  for (let i = 0; i < touched.length; i++) {
    const doc = touched[i]!;
    const score = acc[doc]!;
    if (score > threshold) above.push(doc);
    else if (score === threshold) ties.push(doc);
  }
  above.sort(byScore);
  const byId = ties.map((doc) => ({ doc, id: idOf(doc) })).sort((x, y) => (x.id < y.id ? -1 : 1));
  for (let i = 0; above.length < limit && i < byId.length; i++) above.push(byId[i]!.doc);
  return above;
}

/** The k-th largest value (1-based) of `values` (reordered in place): Hoare's selection, expected linear time. */
export function kthLargest(values: Float64Array, k: number): number {
  const target = values.length - k; // its index in ascending order
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target]!;
}

/**
 * Two query terms next to each other in the query (stop words already gone), weighted by the rarer one,
 * with their posting lists' positions in the search's lists (looked up once a search, not once a candidate).
 */
interface TermPair {
  a: number;
  b: number;
  weight: number;
}

function queryPairs(terms: readonly string[], idf: ReadonlyMap<string, number>, lists: readonly PostingList[]): TermPair[] {
  const pairs = new Map<string, TermPair>();
  for (let i = 1; i < terms.length; i++) {
    const a = terms[i - 1]!;
    const b = terms[i]!;
    const ia = idf.get(a);
    const ib = idf.get(b);
    if (a === b || ia === undefined || ib === undefined) continue;
    // A term with an idf has a list (idf is computed from the lists).
    pairs.set(`${a} ${b}`, { a: lists.findIndex((l) => l.term === a), b: lists.findIndex((l) => l.term === b), weight: Math.min(ia, ib) });
  }
  return [...pairs.values()];
}

/** Terms this close (in tokens, either order) in the item count as the query's pair: "type assertion" ~ "assertion of type". */
const PROXIMITY_WINDOW = 2;

/**
 * Share of the query's adjacent term pairs (idf-weighted) that also sit within PROXIMITY_WINDOW tokens of
 * each other somewhere in kept document `r` (postings from `postingsOf`): the phrase evidence BM25's bag of
 * words misses. 0 for a one-term query.
 */
function proximity(pairs: readonly TermPair[], lists: readonly PostingList[], at: Int32Array, n: number, r: number): number {
  if (pairs.length === 0) return 0;
  let hit = 0;
  let total = 0;
  for (const { a, b, weight } of pairs) {
    total += weight;
    const pa = at[a * n + r]!;
    const pb = pa >= 0 ? at[b * n + r]! : -1;
    if (pb >= 0) {
      const la = lists[a]!;
      const lb = lists[b]!;
      if (near(la.positions, la.posStart[pa]!, la.posStart[pa + 1]!, lb.positions, lb.posStart[pb]!, lb.posStart[pb + 1]!)) hit += weight;
    }
  }
  return total > 0 ? hit / total : 0;
}

/**
 * Whether two sorted position lists (`a[aFrom..aTo)`, `b[bFrom..bTo)`) have entries within the window:
 * a merge walk, linear in their lengths, over the posting lists' own arrays (no view a call).
 */
function near(a: ArrayLike<number>, aFrom: number, aTo: number, b: ArrayLike<number>, bFrom: number, bTo: number): boolean {
  let i = aFrom;
  let j = bFrom;
  while (i < aTo && j < bTo) {
    const d = a[i]! - b[j]!;
    if (d !== 0 && Math.abs(d) <= PROXIMITY_WINDOW) return true;
    if (d < 0) i++;
    else j++;
  }
  return false;
}
