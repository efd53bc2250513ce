/**
 * The lexical baseline: Okapi BM25 in memory over each item's text, with a tokenizer passed in.
 */
import type { Tokenizer } from './tokenizer.js';

export interface Bm25Document {
  id: string;
  text: string;
}

export interface Bm25Options {
  k1?: number;
  b?: number;
}

export interface Bm25Hit {
  id: string;
  score: number;
}

export interface Bm25Index {
  size: number;
  search(query: string, k: number): Bm25Hit[];
}

export function createBm25Index(documents: readonly Bm25Document[], tokenize: Tokenizer, options: Bm25Options = {}): Bm25Index {
  const { k1 = 1.2, b = 0.75 } = options;
  const lengths = new Float64Array(documents.length);
  // term -> postings as parallel arrays of document index and term frequency
  const postings = new Map<string, { docs: number[]; freqs: number[] }>();
  documents.forEach((document, index) => {
    const counts = new Map<string, number>();
    const tokens = tokenize(document.text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    lengths[index] = tokens.length;
    for (const [term, freq] of counts) {
      const list = postings.get(term) ?? { docs: [], freqs: [] };
      list.docs.push(index);
      list.freqs.push(freq);
      postings.set(term, list);
    }
  });
  const n = documents.length;
  const averageLength = n === 0 ? 0 : lengths.reduce((a, c) => a + c, 0) / n;

  return {
    size: n,
    search(query, k) {
      const scores = new Map<number, number>();
      for (const term of new Set(tokenize(query))) {
        const list = postings.get(term);
        if (!list) continue;
        const df = list.docs.length;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        list.docs.forEach((doc, i) => {
          const tf = list.freqs[i]!;
          const norm = tf + k1 * (1 - b + (b * lengths[doc]!) / (averageLength || 1));
          scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (k1 + 1)) / norm);
        });
      }
      return [...scores]
        .sort((x, y) => y[1] - x[1] || x[0] - y[0])
        .slice(0, k)
        .map(([doc, score]) => ({ id: documents[doc]!.id, score }));
    },
  };
}
