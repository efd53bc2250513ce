import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchRequest } from '@engram/contracts';
import { createSearchService, type SearchService } from '../src/index.js';
import { buildIndex, corpusSubset, DATA_DIR, hasData, normalizeAll, type Indexed } from './fixture.js';

type Filters = SearchRequest['filters'];
const req = (query: string, extra: Partial<SearchRequest> = {}) => SearchRequest.parse({ query, mode: 'fast', includeContext: false, ...extra });

describe.skipIf(!hasData)('meta.total over a real index (needs ../shared/data/github-prettier)', () => {
  let index: Indexed;
  let service: SearchService;
  let queries: string[];
  const subset = hasData ? corpusSubset(150) : [];
  // PRs of the subset with two or more of their commits indexed: a commits-only search sees those commits.
  const shas = new Set(subset.filter((o) => o.type === 'commit').map((o) => o.sha));
  const multiCommit = subset.filter((o) => o.type === 'pull_request' && new Set([...(o.commit_shas ?? []), o.merge_commit_sha].filter((s) => s && shas.has(s))).size > 1);

  beforeAll(async () => {
    index = await buildIndex(normalizeAll(subset));
    service = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder });
    const lines = (JSON.parse(readFileSync(`${DATA_DIR}queries.json`, 'utf8')) as { query: string }[]).map((q) => q.query);
    // Release-note lines, titles of PRs whose commits are indexed (their commits match them too), broad words.
    queries = [...lines.slice(0, 12), ...multiCommit.slice(0, 6).map((p) => p.title!), 'fix', 'update dependency', 'typescript'];
  }, 300_000);
  afterAll(async () => {
    await index?.close();
  });

  const filtersToTry: Filters[] = [
    { observationTypes: ['commit'] },
    { observationTypes: ['pull_request'] },
    { observationTypes: ['commit', 'pull_request'] },
    { dateRange: { end: '2026-07-10T00:00:00Z' } },
    { observationTypes: ['commit'], dateRange: { start: '2026-07-05T00:00:00Z' } },
  ];

  it('a filter never raises total', async () => {
    expect(multiCommit.length).toBeGreaterThan(2);
    const raised: string[] = [];
    for (const query of queries) {
      const all = await service.search(index.workspaceId, req(query));
      for (const filters of filtersToTry) {
        const narrowed = await service.search(index.workspaceId, req(query, { filters }));
        if (narrowed.total > all.total) raised.push(`${query} ${JSON.stringify(filters)}: ${narrowed.total} > ${all.total}`);
      }
    }
    expect(raised).toEqual([]);
  }, 120_000);

  it('counts a change once in a commits-only search: commits of one pull request are one result', async () => {
    for (const pr of multiCommit.slice(0, 6)) {
      const out = await service.search(index.workspaceId, req(pr.title!, { limit: 100, filters: { observationTypes: ['commit'] } }));
      const ofPr = out.results.filter((r) => [...(pr.commit_shas ?? []), pr.merge_commit_sha].some((sha) => sha && r.url.endsWith(sha)));
      expect(out.results.every((r) => r.type === 'commit')).toBe(true);
      expect(ofPr.length).toBeLessThanOrEqual(1);
    }
  }, 60_000);

  it('total is what paging returns: every result once, in filtered and unfiltered searches', async () => {
    for (const [query, filters] of [
      ['fix', undefined],
      ['fix', { observationTypes: ['commit'] }],
      [multiCommit[0]!.title!, { observationTypes: ['commit'] }],
      ['update dependency', { dateRange: { end: '2026-07-10T00:00:00Z' } }],
    ] as [string, Filters][]) {
      const first = await service.search(index.workspaceId, req(query, { limit: 50, filters }));
      expect(first.total).toBeGreaterThan(0);
      const seen: string[] = [];
      for (let offset = 0; offset < first.total; offset += 50) {
        const page = await service.search(index.workspaceId, req(query, { limit: 50, offset, filters }));
        expect(page.total).toBe(first.total);
        seen.push(...page.results.map((r) => r.id));
      }
      expect(seen).toHaveLength(first.total);
      expect(new Set(seen).size).toBe(first.total);
      // Past the end, nothing.
      const after = await service.search(index.workspaceId, req(query, { limit: 10, offset: first.total, filters }));
      expect(after.results).toEqual([]);
    }
  }, 120_000);
});
