/**
 * The lexical evidence beyond BM25's bag of words: an item that holds the query's words next to each
 * other (proximity) and one that holds more of the query's rare words (term coverage) rank higher in
 * `fast`, with the signals in [0, 1].
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchRequest } from '@engram/contracts';
import { createSearchService, type SearchService } from '../src/index.js';
import { buildIndex, pullRequest, type Indexed } from './fixture.js';
import { DEFAULT_LEXICAL, kthLargest, lexicalPath, scoreLexical } from '../src/paths/lexical.js';
import { scoreOffThread } from '../src/paths/lexicalThread.js';
import { GrowingPostingList, packFields, type PostingList, type PostingsRead, type SearchReadModel } from '@engram/stores';

const pr = (n: number, title: string, body: string) => pullRequest(n, { title, body });

describe('lexical proximity and term coverage', () => {
  let index: Indexed;
  let service: SearchService;
  beforeAll(async () => {
    index = await buildIndex([
      pr(1, 'Keep comments in union types', 'The printer now keeps a comment written before the first member of a union type.'),
      pr(2, 'Rework the comment printer', 'Types of comments were lost. A union of fixes: keep what users wrote, in every type of node.'),
      pr(3, 'Union types in Flow', 'Flow union types get the same indentation as TypeScript.'),
      pr(4, 'Parser upgrade', 'Bump the parser to the latest release.'),
      pr(5, 'Docs for the CLI', 'Explain the options of the command line.'),
      pr(6, 'Printer fixes from the spring', 'Many small printer fixes: decorators, long strings, a type assertion before a call, and empty files.'),
      pr(7, 'Printer fixes from the autumn', 'Small printer fixes: a type in decorators, long strings, an assertion in calls, and empty files.'),
    ]);
    service = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder });
  }, 120_000);
  afterAll(async () => index?.close());

  const search = async (query: string) => {
    const out = await service.search(index.workspaceId, SearchRequest.parse({ query, mode: 'fast' }), { debugCandidates: true });
    return { titles: out.results.map((r) => r.title), candidates: out.candidates ?? [] };
  };

  it('ranks the item with the query words side by side above one with the same words scattered', async () => {
    const { titles, candidates } = await search('keep comments in union types');
    expect(titles.indexOf('Keep comments in union types')).toBe(0);
    const signal = (title: string, name: string) => candidates.find((c) => c.title === title)?.signals[name];
    expect(signal('Keep comments in union types', 'proximity')).toBe(1);
    // Every query word is in #2 too, but apart: "comment ... union ... type" never adjacent as in the query.
    expect(signal('Rework the comment printer', 'idfCovered')).toBeCloseTo(1, 5);
    expect(signal('Rework the comment printer', 'proximity')).toBeLessThan(0.5);
    expect(titles.indexOf('Keep comments in union types')).toBeLessThan(titles.indexOf('Rework the comment printer'));
  });

  it('ranks an item holding all the query words above one holding only the common ones', async () => {
    const { titles, candidates } = await search('union types comments');
    const covered = (title: string) => candidates.find((c) => c.title === title)?.signals.idfCovered ?? 0;
    expect(covered('Keep comments in union types')).toBeCloseTo(1, 5);
    expect(covered('Union types in Flow')).toBeLessThan(1);
    expect(titles.indexOf('Keep comments in union types')).toBeLessThan(titles.indexOf('Union types in Flow'));
    for (const c of candidates) for (const name of ['proximity', 'idfCovered']) expect(c.signals[name]! >= 0 && c.signals[name]! <= 1).toBe(true);
  });

  it('prefers the phrase "type assertion" over the same two words apart in a shorter text', async () => {
    const { titles } = await search('type assertion');
    expect(titles.indexOf('Printer fixes from the spring')).toBeLessThan(titles.indexOf('Printer fixes from the autumn'));
  });

  it('gives a one-word query no proximity evidence', async () => {
    const { candidates } = await search('parser');
    expect(candidates.length).toBeGreaterThan(0);
    for (const c of candidates) expect(c.signals.proximity ?? 0).toBe(0);
  });
});

describe('the words of a camelCase identifier weigh less than whole words', () => {
  let index: Indexed;
  let service: SearchService;
  beforeAll(async () => {
    index = await buildIndex([
      pr(11, 'Parens around a NewExpression callee', 'A NewExpression whose callee is a call keeps its parentheses.'),
      pr(12, 'Publish a new version of the package to the registry', 'Release steps: bump the version, tag it and publish.'),
      pr(13, 'Print a CallExpression like a NewExpression', 'The callee of a CallExpression is printed as for new.'),
      pr(14, 'Docs for the CLI', 'Explain the options of the command line.'),
      pr(15, 'Parser upgrade', 'Bump the parser to the latest release.'),
    ]);
    service = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder });
  }, 120_000);
  afterAll(async () => index?.close());

  const lexicalScores = async (query: string) => {
    const out = await service.search(index.workspaceId, SearchRequest.parse({ query, mode: 'fast' }), { debugCandidates: true });
    const candidates = out.candidates ?? [];
    const byLexical = [...candidates].sort((a, b) => b.paths.lexical - a.paths.lexical).map((c) => c.title);
    return { byLexical, titles: out.results.map((r) => r.title) };
  };

  it('does not rank a NewExpression change first for a question that says "new" as a word', async () => {
    const { byLexical, titles } = await lexicalScores('how do we release a new version');
    expect(byLexical[0]).toBe('Publish a new version of the package to the registry');
    expect(titles[0]).toBe('Publish a new version of the package to the registry');
    // On "new" alone too: the whole word beats the identifier's part, though the NewExpression title is shorter.
    const alone = await lexicalScores('new');
    expect(alone.byLexical[0]).toBe('Publish a new version of the package to the registry');
  });

  it('still finds the identifier from its words and from its name', async () => {
    expect((await lexicalScores('new expression callee')).byLexical[0]).toBe('Parens around a NewExpression callee');
    expect((await lexicalScores('NewExpression')).byLexical.slice(0, 2).sort()).toEqual(['Parens around a NewExpression callee', 'Print a CallExpression like a NewExpression']);
  });
});

describe('words that say something is wrong weigh less than what it is about', () => {
  let index: Indexed;
  let service: SearchService;
  beforeAll(async () => {
    index = await buildIndex([
      pr(21, 'YAML test suite: spec example bug', 'Imported case from the yaml test suite.'),
      pr(22, 'Keep parentheses around decorators', 'Decorators with a call expression keep their parentheses.'),
      pr(23, 'Decorators on their own line', 'A decorator before export stays where it was.'),
      pr(24, 'Support decorators in object literals', 'Object literal members may have decorators.'),
      pr(25, 'Docs for the CLI', 'Explain the options of the command line.'),
      pr(26, 'Parser upgrade', 'Bump the parser to the latest release.'),
    ]);
    service = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder });
  }, 120_000);
  afterAll(async () => index?.close());

  const ranked = async (query: string) => {
    const out = await service.search(index.workspaceId, SearchRequest.parse({ query, mode: 'fast' }), { debugCandidates: true });
    const byLexical = [...(out.candidates ?? [])].sort((a, b) => b.paths.lexical - a.paths.lexical).map((c) => c.title);
    return { byLexical, titles: out.results.map((r) => r.title) };
  };

  it('does not rank a change first on the word "bug" alone for "decorators bug"', async () => {
    // "bug" is the rarer word (one item), so as a content word it would outweigh "decorators" (three).
    const { byLexical, titles } = await ranked('decorators bug');
    expect(byLexical[0]).not.toBe('YAML test suite: spec example bug');
    expect(titles[0]).not.toBe('YAML test suite: spec example bug');
    expect(titles.indexOf('YAML test suite: spec example bug')).toBeGreaterThan(2);
  });

  it('still finds the word when it is all the question says', async () => {
    expect((await ranked('bug')).titles[0]).toBe('YAML test suite: spec example bug');
  });
});

describe('kthLargest', () => {
  it('finds the k-th largest value as a full sort does, with ties and any k', () => {
    let seed = 3;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const n of [1, 2, 7, 100, 5000]) {
      for (const k of [1, 2, Math.ceil(n / 3), n]) {
        // Coarse values, so many are tied.
        const values = Float64Array.from({ length: n }, () => Math.round(next() * 20) / 4);
        const sorted = [...values].sort((a, b) => b - a);
        expect(kthLargest(values, k)).toBe(sorted[k - 1]);
      }
    }
  });
});

describe('the lexical path keeps its best candidates', () => {
  it('as sorting every match by score, then id, would: with thousands tied at the cut and a filter', async () => {
    // One common term in 3,000 documents of a few lengths (so thousands share a score), a rarer one in some.
    let seed = 11;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const n = 3_000;
    const ids = Array.from({ length: n }, (_, d) => `item_${String(Math.floor(next() * 1e6)).padStart(7, '0')}_${d}`);
    const lengths = Array.from({ length: n }, () => 10 + 10 * Math.floor(next() * 3));
    const list = (term: string, docs: number[], tf: () => number): PostingList => ({
      term,
      df: docs.length,
      count: docs.length,
      docs: Int32Array.from(docs),
      fields: Uint32Array.from(docs, () => packFields([String(tf()), '0', '0', '0'])),
      posStart: new Uint32Array(docs.length + 1),
      positions: new Uint16Array(0),
    });
    const common = list('format', [...Array(n).keys()], () => 1);
    const rare = list('markdown', [...Array(n).keys()].filter(() => next() < 0.05), () => 1 + Math.floor(next() * 2));
    const admitted = (doc: number) => doc % 7 !== 0;
    const read = {
      postings: async (): Promise<PostingsRead> => ({ documents: n, avgLength: 20, lists: [common, rare], admits: admitted, itemId: (d) => ids[d]!, docLength: (d) => lengths[d]! }),
    } as unknown as SearchReadModel;
    for (const candidates of [1, 50, 400, 2_000]) {
      const out = await lexicalPath(read, { workspaceId: 'ws' }, ['format', 'markdown'], { ...DEFAULT_LEXICAL, candidates });
      // The same path with every candidate kept gives each match its score; the cut must keep the best by (score, id).
      const all = await lexicalPath(read, { workspaceId: 'ws' }, ['format', 'markdown'], { ...DEFAULT_LEXICAL, candidates: n });
      const expected = [...all.scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, candidates).map(([id]) => id);
      expect([...out.scores.keys()]).toEqual(expected);
      for (const id of out.scores.keys()) expect(admitted(ids.indexOf(id))).toBe(true);
    }
  });

  it('as scoring every posting would, when common terms are only looked up for the candidates in reach (MaxScore)', async () => {
    // Five terms from very common to rare, with random per-field frequencies and document lengths, so the
    // common terms' lists become non-essential once the rare ones fill the cut.
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const n = 20_000;
    const ids = Array.from({ length: n }, (_, d) => `item_${String(Math.floor(next() * 1e6)).padStart(7, '0')}_${d}`);
    const lengths = Array.from({ length: n }, () => 1 + Math.floor(next() * 120));
    const shares: Record<string, number> = { fix: 0.6, format: 0.4, comment: 0.1, jsx: 0.02, attribut: 0.008 };
    // Now and then a field saturates (255 occurrences), so a term adds close to its bound, idf * (k1 + 1).
    const tf = () => (next() < 0.7 ? 0 : next() < 0.03 ? 255 : 1 + Math.floor(next() * 3));
    const listsOf = (field: () => number[]): PostingList[] =>
      Object.entries(shares).map(([term, share]) => {
        const docs = [...Array(n).keys()].filter(() => next() < share);
        const fields = Uint32Array.from(docs, () => {
          const f = field();
          return (f[0]! | (f[1]! << 8) | (f[2]! << 16) | (f[3]! << 24)) >>> 0;
        });
        return { term, df: docs.length, count: docs.length, docs: Int32Array.from(docs), fields, posStart: new Uint32Array(docs.length + 1), positions: new Uint16Array(0) };
      });
    const varied = listsOf(() => [tf(), 1 + Math.floor(next() * 4), tf(), tf()]);
    // One body occurrence a posting: every document holding the same terms scores the same, so the cut
    // falls inside a group of ties, which must be kept as every posting's scores would keep them (by id).
    const tied = listsOf(() => [0, 1, 0, 0]);
    let lists = varied;
    const admitted = (doc: number) => doc % 5 !== 0;
    const avgLength = lengths.reduce((a, x) => a + x, 0) / n;
    const read = {
      postings: async (_filter: unknown, terms: string[]): Promise<PostingsRead> => ({ documents: n, avgLength, lists: lists.filter((l) => terms.includes(l.term)), admits: admitted, itemId: (d) => ids[d]!, docLength: (d) => (lists === tied ? 40 : lengths[d]!) }),
    } as unknown as SearchReadModel;
    const { k1, b, fieldWeights: w } = DEFAULT_LEXICAL;
    for (lists of [varied, tied]) {
      for (const candidates of [1, 10, 200, 800, 3_000]) {
        for (const query of [['fix', 'format', 'comment', 'jsx', 'attribut'], ['format', 'jsx'], ['fix', 'comment']]) {
          const out = await lexicalPath(read, { workspaceId: 'ws' }, query, { ...DEFAULT_LEXICAL, candidates });
          const expected = rankBy(lists.filter((l) => query.includes(l.term)));
          expect([...out.scores.keys()]).toEqual(expected.slice(0, candidates).map(([doc]) => ids[doc]));
          for (const [doc, score] of expected.slice(0, candidates)) expect(out.signals!.get(ids[doc]!)!.bm25).toBeCloseTo(score, 9);
        }
      }
    }

    // The reference: BM25F of every admitted document holding one of these terms, written out plainly.
    function rankBy(subset: PostingList[]): [number, number][] {
      const scores = new Map<number, number>();
      for (const list of subset) {
        const idf = Math.log(1 + (n - list.df + 0.5) / (list.df + 0.5));
        for (let p = 0; p < list.count; p++) {
          const doc = list.docs[p]!;
          if (!admitted(doc)) continue;
          const f = list.fields[p]!;
          const weighted = (f & 0xff) * w.A + ((f >>> 8) & 0xff) * w.B + ((f >>> 16) & 0xff) * w.C + (f >>> 24) * w.D;
          const norm = k1 * (1 - b + (b * Math.max(1, lists === tied ? 40 : lengths[doc]!)) / avgLength);
          scores.set(doc, (scores.get(doc) ?? 0) + (idf * weighted * (k1 + 1)) / (weighted + norm));
        }
      }
      return [...scores].sort((x, y) => y[1] - x[1] || (ids[x[0]]! < ids[y[0]]! ? -1 : 1));
    }
  });
});

describe('the lexical thread', () => {
  it('scores as the event loop does, as the index grows, with and without a filter, in more than one space', async () => {
    let seed = 5;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const n = 12_000;
    const ids = Array.from({ length: n }, (_, d) => `item_${String(Math.floor(next() * 1e6)).padStart(7, '0')}_${d}`);
    const lengths = Array.from({ length: n }, () => 1 + Math.floor(next() * 80));
    const live = Uint8Array.from({ length: n }, () => (next() < 0.9 ? 1 : 0));
    // Positions too, so that the proximity signal is compared: each posting one or two positions below 40.
    const lists = Object.entries({ printer: 0.5, comment: 0.2, union: 0.05, decorator: 0.01 }).map(([term, share]): PostingList => {
      const docs = [...Array(n).keys()].filter(() => next() < share);
      const posStart = new Uint32Array(docs.length + 1);
      const positions: number[] = [];
      docs.forEach((_, p) => {
        const first = Math.floor(next() * 40);
        positions.push(first, ...(next() < 0.5 ? [first + 1 + Math.floor(next() * 3)] : []));
        posStart[p + 1] = positions.length;
      });
      return {
        term,
        df: docs.length,
        count: docs.length,
        docs: Int32Array.from(docs),
        fields: Uint32Array.from(docs, () => packFields(['A', 'B', 'B', 'C', 'D'].filter(() => next() < 0.5))),
        posStart,
        positions: Uint16Array.from(positions),
      };
    });
    const weights = new Map([['comment', 0.5]]);
    const query = ['union', 'comment', 'printer', 'decorator'];
    // The index as it was when `upTo` documents were in it (lists keep growing past a read's counts).
    const readOf = (space: number, upTo: number, filtered: boolean): PostingsRead => {
      const admits = (doc: number) => live[doc] === 1 && (!filtered || doc % 3 !== 0);
      const cut = lists.map((l) => {
        let count = 0;
        while (count < l.count && l.docs[count]! < upTo) count++;
        return { ...l, count, df: count };
      });
      return {
        documents: upTo,
        avgLength: 40,
        lists: cut,
        admits,
        itemId: (d) => ids[d]!,
        docLength: (d) => lengths[d]!,
        stable: { space, ids: ids.slice(0, upTo), lengths: lengths.slice(0, upTo), ...(filtered ? {} : { live }) },
      };
    };
    for (const space of [1_000_001, 1_000_002]) {
      for (const upTo of [3_000, 7_000, n]) {
        for (const filtered of [false, true]) {
          const read = readOf(space, upTo, filtered);
          const here = scoreLexical(read, query, DEFAULT_LEXICAL, weights)!;
          const there = (await scoreOffThread(read, read.stable!, query, DEFAULT_LEXICAL, weights))!;
          expect(there.docs.length).toBe(Math.min(DEFAULT_LEXICAL.candidates, here.docs.length));
          expect([...there.docs]).toEqual([...here.docs]);
          expect([...there.scores]).toEqual([...here.scores]);
          expect([...there.table]).toEqual([...here.table]);
          // And through the path, allowed the thread: the same ids, scores and signals as a read the thread
          // is not given.
          const { stable: _, ...plain } = read;
          const inline = await lexicalPath({ postings: async () => plain } as unknown as SearchReadModel, { workspaceId: 'ws' }, query, DEFAULT_LEXICAL, weights);
          const path = await lexicalPath({ postings: async () => read } as unknown as SearchReadModel, { workspaceId: 'ws' }, query, DEFAULT_LEXICAL, weights, { offThread: true });
          expect([...path.scores]).toEqual([...inline.scores]);
          for (const id of inline.scores.keys()) expect(path.signals!.get(id)).toEqual(inline.signals!.get(id));
        }
      }
    }
  });
  it('reads the in-memory index\'s lists in place, as they were when the search read them, while they grow and are compacted', async () => {
    let seed = 9;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const n = 8_000;
    const ids = Array.from({ length: 2 * n }, (_, d) => `item_${d}`);
    const lengths = Array.from({ length: 2 * n }, () => 1 + Math.floor(next() * 60));
    const live = new Uint8Array(2 * n).fill(1);
    const lists = ['format', 'markdown', 'table'].map((term) => new GrowingPostingList(term));
    const fill = (from: number, to: number) => {
      for (let doc = from; doc < to; doc++) {
        lists.forEach((list, i) => {
          if (next() < [0.6, 0.2, 0.05][i]!) list.append(doc, packFields(['A', 'B', 'B', 'D'].filter(() => next() < 0.5)), [Math.floor(next() * 30), 30 + Math.floor(next() * 30)]);
        });
      }
    };
    fill(0, n);
    const read: PostingsRead = {
      documents: n,
      avgLength: 30,
      // As the index hands them out: the lists themselves, which go on growing.
      lists,
      admits: (doc) => live[doc] === 1,
      itemId: (d) => ids[d]!,
      docLength: (d) => lengths[d]!,
      stable: { space: 1_000_003, ids: ids.slice(0, n), lengths: lengths.slice(0, n), live: live.slice(0, n) },
    };
    const query = ['markdown', 'table', 'format'];
    const here = scoreLexical(read, query, DEFAULT_LEXICAL)!;
    const pending = scoreOffThread(read, read.stable!, query, DEFAULT_LEXICAL);
    expect(read.lists.every((l) => l.docs.buffer instanceof SharedArrayBuffer)).toBe(true);
    // Meanwhile the index moves on: half of its documents retired and compacted away, then more added.
    for (let doc = 0; doc < n; doc += 2) live[doc] = 0;
    for (const list of lists) list.compact((doc) => live[doc] === 1);
    fill(n, 2 * n);
    const there = (await pending)!;
    expect([...there.docs]).toEqual([...here.docs]);
    expect([...there.table]).toEqual([...here.table]);
  });
});
