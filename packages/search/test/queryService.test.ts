/**
 * The QueryService: one entry for the six operations, typed outcomes, and typed errors a caller tells apart
 * with `instanceof` (never by name). A thorough search whose LLM fails says why it fell back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FindSimilarRequest, NotFoundError, ProxyCallRequest, RelatedRequest, SearchRequest, SourceEvent } from '@engram/contracts';
import { createSecretBox } from '@engram/stores';
import { createQueryService, type QueryService, type Reranker } from '../src/index.js';
import { buildIndex, type Indexed } from './fixture.js';

const event = (n: number, title: string): SourceEvent =>
  SourceEvent.parse({
    source: 'github', type: 'pull_request', externalId: `github:acme/widgets:pull_request:${n}`, url: `https://github.com/acme/widgets/pull/${n}`,
    title, body: `${title}. Details of change ${n}.`, occurredAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
    keys: [`pr:acme/widgets#${n}`], container: 'acme/widgets',
  });

const byFused: Reranker = { name: 'fused', rerank: async (_q, cs) => cs.map((c) => c.fused) };
const failing: Reranker = { name: 'llm', rerank: async () => { throw new Error('LLM unreachable'); } };

describe('QueryService', () => {
  let index: Indexed;
  const warnings: { fields: object; message: string }[] = [];
  const service = (rankers: { reranker?: Reranker; llm?: Reranker } = { reranker: byFused }): QueryService =>
    createQueryService({
      db: index.db, vectors: index.vectors, embedder: index.embedder, ...rankers,
      logger: { warn: (fields, message) => void warnings.push({ fields, message }) },
      proxy: { db: index.db, secretBox: createSecretBox('query-service-test-secret-0123456789'), connectorFor: () => { throw new Error('no connectors here'); } },
    });

  beforeAll(async () => {
    index = await buildIndex([event(1, 'Fix crash on empty config file'), event(2, 'Fix crash on empty config files in workspaces'), event(3, 'Add markdown table support')]);
  }, 120_000);
  afterAll(async () => index?.close());

  it('answers search, contents, findsimilar and related for indexed items', async () => {
    const q = service();
    const found = await q.search(index.workspaceId, SearchRequest.parse({ query: 'crash empty config' }));
    expect(found.results.map((r) => r.title)).toContain('Fix crash on empty config file');
    const id = found.results[0]!.id;
    expect((await q.contents(index.workspaceId, [id, 'obs_nope'])).missing).toEqual(['obs_nope']);
    const similar = await q.findSimilar(index.workspaceId, FindSimilarRequest.parse({ id }));
    expect(similar.source.id).toBe(id);
    expect(similar.similar.map((s) => s.id)).not.toContain(id);
    expect((await q.related(index.workspaceId, RelatedRequest.parse({ id }))).root.id).toBe(id);
  });

  it('signals what is missing with a NotFoundError naming the resource', async () => {
    const q = service();
    const missing = async (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);
    const errors = [
      await missing(q.findSimilar(index.workspaceId, FindSimilarRequest.parse({ id: 'obs_unknown' }))),
      await missing(q.findSimilar(index.workspaceId, FindSimilarRequest.parse({ url: 'https://github.com/acme/widgets/pull/404' }))),
      await missing(q.related(index.workspaceId, RelatedRequest.parse({ id: 'obs_unknown' }))),
      await missing(q.proxyCall(index.workspaceId, ProxyCallRequest.parse({ action: 'github.getIssue', params: {} }))),
      await missing(q.proxyCall(index.workspaceId, ProxyCallRequest.parse({ connectionId: 'con_unknown', action: 'github.getIssue', params: {} }))),
    ];
    for (const e of errors) expect(e).toBeInstanceOf(NotFoundError);
    expect(errors.map((e) => (e as NotFoundError).resource)).toEqual(['item', 'item', 'item', 'action', 'connection']);
    expect(await q.proxySearch(index.workspaceId)).toEqual([]);
  });

  it('answers from the lexical, entity and actor paths when the query cannot be embedded, says which paths ran, and logs why', async () => {
    // What the OpenAI SDK throws when the provider answers 404: a string `type` and a `status`.
    const unreachable = Object.assign(new Error('404 no route for /embeddings'), { status: 404, type: 'invalid_request_error' });
    const q = createQueryService({
      db: index.db, vectors: index.vectors, reranker: byFused,
      embedder: { model: index.embedder.model, embed: async () => { throw unreachable; } },
      logger: { warn: (fields, message) => void warnings.push({ fields, message }) },
      proxy: { db: index.db, secretBox: createSecretBox('query-service-test-secret-0123456789'), connectorFor: () => { throw new Error('no connectors here'); } },
    });
    for (const mode of ['fast', 'balanced'] as const) {
      const found = await q.search(index.workspaceId, SearchRequest.parse({ query: 'markdown table support', mode }));
      expect(found.results[0]?.title).toBe('Add markdown table support');
      expect(found.paths).toMatchObject({ lexical: true, vector: false, cluster: false });
    }
    expect(warnings.some((w) => w.message === 'search ran without the vector and cluster paths: the query embedding failed' && JSON.stringify(w.fields).includes('no route for /embeddings'))).toBe(true);
    // A cancelled search still fails.
    const cancelled = new AbortController();
    cancelled.abort(new Error('client went away'));
    await expect(q.search(index.workspaceId, SearchRequest.parse({ query: 'markdown table support' }), { signal: cancelled.signal })).rejects.toThrow();
  });

  it('a thorough search whose LLM fails runs balanced, says llm-failed and logs it; without an LLM it says no-llm', async () => {
    const request = SearchRequest.parse({ query: 'crash empty config', mode: 'thorough' });
    const failed = await service({ reranker: byFused, llm: failing }).search(index.workspaceId, request);
    expect([failed.mode, failed.requestedMode, failed.fallbackReason]).toEqual(['balanced', 'thorough', 'llm-failed']);
    expect(warnings.some((w) => w.message === 'thorough search fell back: the LLM call failed' && JSON.stringify(w.fields).includes('LLM unreachable'))).toBe(true);
    const none = await service({ reranker: byFused }).search(index.workspaceId, request);
    expect([none.mode, none.fallbackReason]).toEqual(['balanced', 'no-llm']);
    const ok = await service({ reranker: byFused, llm: byFused }).search(index.workspaceId, request);
    expect(ok.mode).toBe('thorough');
    expect(ok).not.toHaveProperty('fallbackReason');
  });
});
