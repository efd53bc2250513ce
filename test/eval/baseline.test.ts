import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { lexicalBaseline } from '../../bench/eval/baseline.js';
import { createBm25Index } from '../../bench/eval/bm25.js';
import { datasetIdFromUrl, loadAuditedLinks, loadDataset, pullRequestsByCommit, splitOf, splitQueries, squashCommitIds, type Dataset } from '../../bench/eval/dataset.js';
import { judgementOf, scoreQuery } from '../../bench/eval/metrics.js';
import { defaultTokenize } from '../../bench/eval/tokenizer.js';
import { tokenize } from '@engram/text';

const DATA = new URL('../../../shared/data/github-prettier', import.meta.url).pathname;

describe('BM25', () => {
  const documents = [
    { id: 'a', text: 'Preserve quotes for TSMethodSignature nodes named new' },
    { id: 'b', text: 'Update dependency eslint to v9' },
    { id: 'c', text: 'Fix quotes in JSX attributes, quotes everywhere, many quotes and more words to make it long' },
  ];

  it('ranks the document sharing the rare words first and leaves out documents with none', () => {
    const index = createBm25Index(documents, tokenize);
    const hits = index.search('TypeScript: preserve quotes for methods named new', 10);
    expect(hits.map((h) => h.id)).toEqual(['a', 'c']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('meets a camelCase identifier through its words', () => {
    const index = createBm25Index(documents, defaultTokenize);
    expect(index.search('method signature', 1)[0]?.id).toBe('a');
  });

  it('cuts the list at k', () => {
    expect(createBm25Index(documents, tokenize).search('quotes', 1)).toHaveLength(1);
  });
});

describe('dataset helpers', () => {
  it('maps GitHub URLs to dataset ids', () => {
    expect(datasetIdFromUrl('https://github.com/prettier/prettier/pull/19621')).toBe('pull_request:19621');
    expect(datasetIdFromUrl('https://github.com/prettier/prettier/commit/5F2C401ab0')).toBe('commit:5f2c401ab0');
    expect(datasetIdFromUrl('https://github.com/prettier/prettier/issues/42#issuecomment-1')).toBe('issue:42');
    expect(datasetIdFromUrl('https://linear.app/team/issue/ENG-1')).toBeNull();
  });
});

describe.skipIf(!existsSync(DATA))('on the shared prettier dataset (skipped: ../shared/data/github-prettier is absent)', () => {
  let dataset: Dataset;
  beforeAll(async () => {
    dataset = await loadDataset(DATA);
  });

  it('audits only links that are real corpus items, of a scored kind, and that links.json does not already hold', async () => {
    const audited = await loadAuditedLinks();
    const ids = new Set(dataset.corpus.map((item) => item.id));
    const labelled = new Set(dataset.links.map((link) => [link.source, link.target].sort().join('|')));
    expect(audited.length).toBeGreaterThan(0);
    for (const link of audited) {
      expect(ids.has(link.source) && ids.has(link.target), `${link.source} -> ${link.target}`).toBe(true);
      expect(labelled.has([link.source, link.target].sort().join('|')), `${link.source} -> ${link.target} is labelled already`).toBe(false);
      expect(link.type).toBe('reverts');
      expect(link.evidence).toBeTruthy();
    }
  });

  it('splits queries deterministically, about 70% dev and 30% test, with no overlap', () => {
    const dev = splitQueries(dataset.queries, 'dev');
    const test = splitQueries(dataset.queries, 'test');
    expect(dev.length + test.length).toBe(dataset.queries.length);
    expect(test.length / dataset.queries.length).toBeGreaterThan(0.2);
    expect(test.length / dataset.queries.length).toBeLessThan(0.4);
    expect(test.every((q) => splitOf(q.id) === 'test')).toBe(true);
    expect(splitQueries([...dataset.queries].reverse(), 'test').map((q) => q.id).sort()).toEqual(test.map((q) => q.id).sort());
  });

  it('finds most cited PRs of a small slice of queries with BM25 over PRs and their commits', () => {
    const prNumbers = new Set(dataset.queries.slice(0, 40).flatMap((q) => q.relevant.map((r) => r.id)));
    // A slice of the corpus: the cited PRs and commits plus 1,000 other items as distractors.
    const cited = new Set([...prNumbers, ...dataset.queries.slice(0, 40).flatMap((q) => q.relevant_commits)]);
    const corpus = [...dataset.corpus.filter((item) => cited.has(item.id)), ...dataset.corpus.filter((item) => !cited.has(item.id)).slice(0, 1000)];
    const byCommit = pullRequestsByCommit(corpus, dataset.links);
    const bm25 = lexicalBaseline(corpus, tokenize);
    const scores = dataset.queries.slice(0, 40).map((q) => scoreQuery(bm25.index.search(q.query, 100).map((h) => h.id), judgementOf(q, byCommit)));
    const recall10 = scores.reduce((sum, s) => sum + s.recall10, 0) / scores.length;
    expect(recall10).toBeGreaterThan(0.6);
  });

  it('leaves squash commits out of the no-squash variant but keeps other commits', () => {
    const squash = squashCommitIds(dataset.corpus);
    const commits = dataset.corpus.filter((item) => item.type === 'commit').length;
    expect(squash.size).toBeGreaterThan(0);
    expect(squash.size).toBeLessThan(commits);
    const slice = dataset.corpus.slice(0, 600);
    const sliceSquash = squashCommitIds(slice);
    expect(lexicalBaseline(slice, tokenize, { withoutSquashCommits: true }).index.size).toBe(slice.length - sliceSquash.size);
  });
});
