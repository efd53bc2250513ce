/** Spec 4.1 (search), 5 (auth), 7 (errors), 8 (limits), against a running server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, idOf, story } from './support/events.js';
import { authRules, expectErrorBody } from './support/rules.js';
import { backends, startApi, type Api, type Tenant } from './support/server.js';

describe.each(backends())('POST /v1/search ($name)', (backend) => {
  let api: Api;
  let tenant: Tenant;
  let other: Tenant;
  let ids: string[];

  beforeAll(async () => {
    api = await startApi(backend);
    tenant = await api.tenant();
    other = await api.tenant('other');
    ids = await api.index(tenant.workspaceId, allEvents());
    // The other workspace holds the same story: its items must never show up in the tenant's results.
    await api.index(other.workspaceId, [story.crashIssue, story.fixPr]);
  });
  afterAll(async () => api?.close());

  const search = (body: Record<string, unknown>, prefix = '/v1') => api.post(`${prefix}/search`, body, tenant);

  authRules(() => ({ api, tenant, other }), { path: '/search', body: () => ({ query: 'config crash' }), headerRequired: true });

  it('Shape A: data, context, meta {total, limit, offset, took, mode, paths}, latency {total, retrieval, rerank}, requestId', async () => {
    const res = await search({ query: 'empty config crash' });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.meta).toMatchObject({ limit: 10, offset: 0, total: expect.any(Number), took: expect.any(Number), mode: expect.any(String) });
    for (const path of ['vector', 'entity', 'cluster', 'actor']) expect(typeof res.body.meta.paths[path]).toBe('boolean');
    for (const k of ['total', 'retrieval', 'rerank']) expect(typeof res.body.latency[k]).toBe('number');
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    const first = res.body.data[0];
    for (const k of ['id', 'title', 'url', 'snippet', 'score', 'source', 'type']) expect(first).toHaveProperty(k);
  });

  it('Shape B on /api/v1: {results, total, requestId} with the documented result fields only', async () => {
    const res = await search({ query: 'empty config crash' }, '/api/v1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['requestId', 'results', 'total']);
    expect(res.body.total).toBeGreaterThan(0);
    for (const r of res.body.results) {
      for (const k of Object.keys(r)) expect(['id', 'title', 'snippet', 'score', 'source', 'type', 'url', 'occurredAt']).toContain(k);
    }
    const a = await search({ query: 'empty config crash' });
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(a.body.data.map((r: { id: string }) => r.id));
  });

  it('finds the fix for a crash report and never returns another workspace\'s items', async () => {
    const res = await search({ query: 'crash on empty config file', limit: 100 });
    const found = new Set(res.body.data.map((r: { id: string }) => r.id));
    expect(found.has(idOf(ids, 'fixPr'))).toBe(true);
    for (const id of found) expect(ids).toContain(id);
  });

  it('score is a number in [0, 1] for every result', async () => {
    const res = await search({ query: 'parser', limit: 100, mode: 'fast' });
    expect(res.body.data.length).toBeGreaterThan(10);
    for (const r of res.body.data) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
  });

  it('pagination: walking offset += limit until offset + limit >= total returns every result exactly once', async () => {
    const all = await search({ query: 'parser', limit: 100 });
    const total = all.body.meta.total as number;
    expect(total).toBeGreaterThan(7);
    const seen: string[] = [];
    for (let offset = 0; ; offset += 7) {
      const page = await search({ query: 'parser', limit: 7, offset });
      expect(page.body.meta).toMatchObject({ total, limit: 7, offset });
      seen.push(...page.body.data.map((r: { id: string }) => r.id));
      if (offset + 7 >= total) break;
    }
    expect(seen.length).toBe(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen).toEqual(all.body.data.map((r: { id: string }) => r.id).slice(0, total));
  });

  it('the ranking does not depend on the page size: limit 3 offset 2 is results 3-5 of the limit-10 page', async () => {
    const ten = await search({ query: 'parser handle', limit: 10 });
    const three = await search({ query: 'parser handle', limit: 3, offset: 2 });
    expect(three.body.data.map((r: { id: string }) => r.id)).toEqual(ten.body.data.slice(2, 5).map((r: { id: string }) => r.id));
  });

  it('includeContext false omits the context key; true gives clusters and relevantActors', async () => {
    const without = await search({ query: 'config crash', includeContext: false });
    expect(without.body).not.toHaveProperty('context');
    const withCtx = await search({ query: 'config crash' });
    expect(withCtx.body.context).toBeDefined();
    expect(Array.isArray(withCtx.body.context.clusters)).toBe(true);
    expect(Array.isArray(withCtx.body.context.relevantActors)).toBe(true);
    for (const c of withCtx.body.context.clusters) expect(c).toMatchObject({ keywords: expect.any(Array) });
    for (const a of withCtx.body.context.relevantActors) expect(a).toMatchObject({ displayName: expect.any(String), expertiseDomains: expect.any(Array) });
  });

  it('includeHighlights false omits every highlights key', async () => {
    const res = await search({ query: 'config crash', includeHighlights: false });
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const r of res.body.data) expect(r).not.toHaveProperty('highlights');
  });

  it('highlights wrap matched terms in <mark> and escape the source HTML', async () => {
    const res = await search({ query: 'tooltip script crash', limit: 20 });
    const hit = res.body.data.find((r: { id: string }) => r.id === idOf(ids, 'htmlIssue'));
    expect(hit).toBeDefined();
    const text = `${hit.highlights.title ?? ''} ${hit.highlights.snippet ?? ''}`;
    expect(text).toContain('<mark>');
    expect(text).not.toMatch(/<script|<b>/);
    expect(text.replace(/<\/?mark>/g, '')).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text.replace(/<\/?mark>/g, '')).not.toMatch(/[<>]/);
  });

  it('entities are {key, category} objects', async () => {
    const res = await search({ query: 'Fix crash on empty config file' });
    for (const r of res.body.data) for (const e of r.entities ?? []) expect(Object.keys(e).sort()).toEqual(['category', 'key']);
  });

  it('filters sourceTypes, observationTypes, actorNames and dateRange restrict the results (inside retrieval)', async () => {
    const linear = await search({ query: 'crash', filters: { sourceTypes: ['linear'] } });
    expect(linear.body.data.length).toBeGreaterThan(0);
    for (const r of linear.body.data) expect(r.source).toBe('linear');
    const commits = await search({ query: 'crash config', filters: { observationTypes: ['commit'] } });
    expect(commits.body.data.length).toBeGreaterThan(0);
    for (const r of commits.body.data) expect(r.type).toBe('commit');
    const erin = await search({ query: 'parser', limit: 100, filters: { actorNames: ['erin'] } });
    expect(erin.body.meta.total).toBe(12);
    const late = await search({ query: 'parser', limit: 100, filters: { dateRange: { start: '2024-01-25T00:00:00Z' } } });
    expect(late.body.data.length).toBeGreaterThan(0);
    for (const r of late.body.data) expect(r.occurredAt >= '2024-01-25').toBe(true);
    const combined = await search({ query: 'parser', limit: 100, filters: { actorNames: ['erin'], dateRange: { end: '2024-01-20T00:00:00Z' } } });
    for (const r of combined.body.data) expect(r.occurredAt <= '2024-01-20T00:00:00.000Z').toBe(true);
    expect(combined.body.meta.total).toBeLessThan(12);
  });

  it('mode: each of fast, balanced, thorough answers, and meta.mode reports the mode that actually ran', async () => {
    const fast = await search({ query: 'config crash', mode: 'fast' });
    expect(fast.body.meta.mode).toBe('fast');
    expect(fast.body.meta).not.toHaveProperty('requestedMode');
    const balanced = await search({ query: 'config crash', mode: 'balanced' });
    expect(balanced.body.meta.mode).toBe('balanced');
    expect(balanced.body.meta).not.toHaveProperty('requestedMode');
    // No LLM is configured here: thorough runs as balanced, and says so.
    const thorough = await search({ query: 'config crash', mode: 'thorough' });
    expect(thorough.status).toBe(200);
    expect([thorough.body.meta.mode, thorough.body.meta.requestedMode]).toEqual(['balanced', 'thorough']);
  });

  it('meta.scoreKind says what the score means for the mode that ran (a fallback reports the mode that scored)', async () => {
    const fast = await search({ query: 'config crash', mode: 'fast' });
    expect(fast.body.meta.scoreKind).toBe('fused');
    const balanced = await search({ query: 'config crash', mode: 'balanced' });
    expect([balanced.body.meta.mode, balanced.body.meta.scoreKind]).toEqual(['balanced', 'probability']);
    // No LLM here: thorough runs as balanced, so its scores are the reranker's probabilities.
    const thorough = await search({ query: 'config crash', mode: 'thorough' });
    expect([thorough.body.meta.mode, thorough.body.meta.scoreKind]).toEqual(['balanced', 'probability']);
    const doc = (await (await fetch(`${api.base}/v1/openapi.json`)).json()) as { components: { schemas: Record<string, { properties: Record<string, { properties: Record<string, unknown> }> }> } };
    expect(doc.components.schemas.SearchResponseA!.properties.meta!.properties.scoreKind).toMatchObject({ enum: ['fused', 'probability', 'llm-blend'] });
  });

  it('defaults: limit 10, offset 0, mode balanced requested', async () => {
    const res = await search({ query: 'parser' });
    expect(res.body.meta).toMatchObject({ limit: 10, offset: 0 });
    expect(res.body.data.length).toBe(10);
    expect([res.body.meta.mode, res.body.meta.requestedMode]).toContain('balanced');
  });

  for (const [body, field] of [
    [{ query: 'x', limit: 0 }, 'limit'],
    [{ query: 'x', limit: 101 }, 'limit'],
    [{ query: 'x', limit: 2.5 }, 'limit'],
    [{ query: 'x', offset: -1 }, 'offset'],
    [{ query: 'x', mode: 'quick' }, 'mode'],
    [{}, 'query'],
    [{ query: '   ' }, 'query'],
    [{ query: 42 }, 'query'],
    [{ query: 'x', includeContext: 'yes' }, 'includeContext'],
    [{ query: 'x', filters: { dateRange: { start: 'last tuesday' } } }, 'filters.dateRange.start'],
    [{ query: 'x', filters: { sourceTypes: 'github' } }, 'filters.sourceTypes'],
  ] as const) {
    it(`${JSON.stringify(body)} is 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await search(body);
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'VALIDATION_ERROR');
      expect(res.body.data.fields).toContain(field);
    });
  }

  it('limit 1 and limit 100 are accepted (the bounds are inclusive)', async () => {
    expect((await search({ query: 'parser', limit: 1 })).body.data.length).toBe(1);
    expect((await search({ query: 'parser', limit: 100 })).status).toBe(200);
  });

  it('an offset past the end answers an empty page with the same total', async () => {
    const res = await search({ query: 'parser', offset: 5000 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.total).toBeGreaterThan(0);
  });
});
