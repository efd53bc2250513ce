import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchRequest } from '@engram/contracts';
import { createLearnedReranker, createSearchService, type SearchService } from '../src/index.js';
import { buildIndex, corpusSubset, DATA_DIR, hasData, normalizeAll, type Indexed } from './fixture.js';

interface Query {
  query: string;
  relevant: { id: string; number: number }[];
  relevant_commits: string[];
}

const req = (query: string, extra: Partial<SearchRequest> = {}) => SearchRequest.parse({ query, mode: 'fast', ...extra });

describe.skipIf(!hasData)('search over a real index (needs ../shared/data/github-prettier)', () => {
  let index: Indexed;
  let service: SearchService;
  let queries: Query[];
  const subset = hasData ? corpusSubset(150) : [];

  beforeAll(async () => {
    index = await buildIndex(normalizeAll(subset));
    service = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder });
    const prNumbers = new Set(subset.filter((o) => o.type === 'pull_request').map((o) => o.number));
    queries = (JSON.parse(readFileSync(`${DATA_DIR}queries.json`, 'utf8')) as Query[]).filter((q) => q.relevant.every((r) => prNumbers.has(r.number)));
  }, 300_000);
  afterAll(async () => {
    await index?.close();
  });

  it('finds the pull request a release-note line describes, for most lines', async () => {
    expect(queries.length).toBeGreaterThan(5);
    let top10 = 0;
    for (const q of queries) {
      const out = await service.search(index.workspaceId, req(q.query));
      const urls = out.results.map((r) => r.url);
      if (q.relevant.some((r) => urls.includes(`https://github.com/prettier/prettier/pull/${r.number}`))) top10++;
    }
    console.log(`target in top 10: ${top10}/${queries.length}`);
    expect(top10 / queries.length).toBeGreaterThan(0.7);
  });

  it('shows a pull request and its squash commit as one result: the pull request', async () => {
    const pr = subset.find((o) => o.type === "pull_request" && (o.title ?? "").length > 25 && !/^(Update|Bump|chore)/i.test(o.title ?? ""))!;
    const out = await service.search(index.workspaceId, req(pr.title!, { limit: 20 }));
    expect(out.results[0]?.url).toBe(`https://github.com/prettier/prettier/pull/${pr.number}`);
    expect(out.results.some((r) => r.type === 'commit' && r.url.endsWith(pr.merge_commit_sha!))).toBe(false);
  });

  it('previews a pull request with no description by the files it changed, code first', async () => {
    const pr = subset.find((o) => o.type === 'pull_request' && !(o.body ?? '').trim() && (o.files ?? []).some((f) => f.filename.startsWith('src/')) && (o.title ?? '').length > 25)!;
    const out = await service.search(index.workspaceId, req(pr.title!, { limit: 5 }));
    const hit = out.results.find((r) => r.url === `https://github.com/prettier/prettier/pull/${pr.number}`)!;
    expect(hit.snippet).toMatch(/^Changed /);
    expect(hit.snippet.length).toBeLessThanOrEqual(300);
    const shown = pr.files!.map((f) => f.filename).filter((f) => hit.snippet.includes(f));
    expect(shown.some((f) => f.startsWith('src/'))).toBe(true);
    // Code before tests: no test file is listed ahead of a source file.
    const at = (f: string) => hit.snippet.indexOf(f);
    for (const t of shown.filter((f) => f.startsWith('tests/'))) for (const c of shown.filter((f) => f.startsWith('src/'))) expect(at(c)).toBeLessThan(at(t));
  });

  it('answers a question by its topic: "what do we know about X" ranks as "X" does', async () => {
    const pr = subset.find((o) => o.type === 'pull_request' && (o.title ?? '').length > 25 && !/^(Update|Bump|chore)/i.test(o.title ?? ''))!;
    const plain = await service.search(index.workspaceId, req(pr.title!, { limit: 5 }));
    const asked = await service.search(index.workspaceId, req(`What do we know about ${pr.title!}?`, { limit: 5 }));
    expect(asked.results.map((r) => r.id)).toEqual(plain.results.map((r) => r.id));
    // Same scores: the frame words neither match items nor count as query terms an item lacks.
    expect(asked.results.map((r) => r.score)).toEqual(plain.results.map((r) => r.score));
  });

  it('keeps scores in [0, 1], descending with rank', async () => {
    const out = await service.search(index.workspaceId, req('fix formatting of comments in typescript', { limit: 50 }));
    expect(out.results.length).toBeGreaterThan(5);
    const scores = out.results.map((r) => r.score);
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('pages stably: walking offset by limit returns every result once, and page size does not change ranking', async () => {
    const q = 'update dependency';
    const ten = await service.search(index.workspaceId, req(q, { limit: 10 }));
    const three = await service.search(index.workspaceId, req(q, { limit: 3, offset: 2 }));
    expect(three.results.map((r) => r.id)).toEqual(ten.results.slice(2, 5).map((r) => r.id));
    const seen: string[] = [];
    for (let offset = 0; offset < ten.total; offset += 7) {
      const page = await service.search(index.workspaceId, req(q, { limit: 7, offset }));
      expect(page.total).toBe(ten.total);
      seen.push(...page.results.map((r) => r.id));
    }
    expect(seen).toHaveLength(ten.total);
    expect(new Set(seen).size).toBe(ten.total);
  });

  it('pages a reranked list past the reranking depth with every result whole', async () => {
    const rerankDepth = 6;
    const balanced = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder, reranker: createLearnedReranker(), rerankDepth });
    const q = 'fix';
    const first = await balanced.search(index.workspaceId, req(q, { mode: 'balanced', limit: 10 }));
    expect(first.mode).toBe('balanced');
    expect(first.total).toBeGreaterThan(rerankDepth * 3);
    const seen: string[] = [];
    for (let offset = 0; offset < first.total; offset += 4) {
      const page = await balanced.search(index.workspaceId, req(q, { mode: 'balanced', limit: 4, offset }));
      for (const r of page.results) expect(r.url.startsWith('https://github.com/') && r.title.length > 0).toBe(true);
      seen.push(...page.results.map((r) => r.id));
    }
    expect(seen).toHaveLength(first.total);
    expect(new Set(seen).size).toBe(first.total);
  });

  it('applies filters inside retrieval, not after a top-k cut', async () => {
    const commits = await service.search(index.workspaceId, req('update', { limit: 100, filters: { observationTypes: ['commit'] } }));
    expect(commits.results.length).toBeGreaterThan(0);
    expect(commits.results.every((r) => r.type === 'commit')).toBe(true);
    const all = await service.search(index.workspaceId, req('update', { limit: 100 }));
    expect(commits.total).toBeLessThan(all.total + commits.total);
    const end = '2026-06-01T00:00:00Z';
    const dated = await service.search(index.workspaceId, req('update', { limit: 100, filters: { dateRange: { end } } }));
    expect(dated.results.every((r) => Date.parse(r.occurredAt!) <= Date.parse(end))).toBe(true);
    const none = await service.search(index.workspaceId, req('update', { filters: { actorNames: ['nobody-at-all'] } }));
    expect(none.total).toBe(0);
  });

  it('marks matched words and escapes source HTML in highlights', async () => {
    const out = await service.search(index.workspaceId, req('typescript', { limit: 5 }));
    const h = out.results[0]!.highlights!;
    expect(`${h.title}${h.snippet}`).toMatch(/<mark>[^<]*<\/mark>/);
    expect(`${h.title}${h.snippet}`.replace(/<\/?mark>/g, '')).not.toMatch(/<[a-z]/i);
  });

  it('reports the mode that actually ran: without a reranker or an LLM, fast', async () => {
    const out = await service.search(index.workspaceId, req('typescript', { mode: 'thorough' }));
    expect(out.mode).toBe('fast');
    expect(out.requestedMode).toBe('thorough');
    expect(out.paths).toMatchObject({ lexical: true, vector: true, entity: true, cluster: true, actor: true });
    expect(out.latency.total).toBeGreaterThanOrEqual(out.latency.retrieval);
  });

  it('turns paths off for ablation and says so', async () => {
    const out = await service.search(index.workspaceId, req('typescript'), { disablePaths: ['vector', 'cluster'] });
    expect(out.paths.vector).toBe(false);
    expect(out.paths.cluster).toBe(false);
    expect(out.results.length).toBeGreaterThan(0);
  });
});
