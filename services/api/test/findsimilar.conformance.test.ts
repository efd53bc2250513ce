/** Spec 4.3 (findsimilar), 2.4, 5, 7, 8, against a running server. */
import { createConnection } from '@engram/stores';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub, syntheticIssues, type FakeGitHub } from '../../../test/fakes/github/index.js';
import { allEvents, idOf, story } from './support/events.js';
import { authRules, expectErrorBody } from './support/rules.js';
import { backends, startApi, type Api, type Tenant } from './support/server.js';

const TOKEN = 'ghp_findSimilarToken0123456789';

describe.each(backends())('POST /v1/findsimilar ($name)', (backend) => {
  let api: Api;
  let github: FakeGitHub;
  let tenant: Tenant;
  let other: Tenant;
  let ids: string[];
  let otherIds: string[];
  let duplicateId: string | undefined;

  beforeAll(async () => {
    github = await startFakeGitHub({ repo: 'acme/widgets', items: syntheticIssues(3, { firstNumber: 500 }), token: TOKEN });
    api = await startApi(backend);
    tenant = await api.tenant();
    other = await api.tenant('other');
    ids = await api.index(tenant.workspaceId, allEvents());
    // A near-duplicate report of the crash issue (same words, another number).
    [duplicateId] = await api.index(tenant.workspaceId, [
      { ...story.crashIssue, externalId: 'github:acme/widgets:issue:12', url: 'https://github.com/acme/widgets/issues/12', keys: ['issue:acme/widgets#12'] },
    ]);
    otherIds = await api.index(other.workspaceId, [story.crashIssue]);
    await createConnection(api.runtime.db, api.runtime.secretBox, {
      workspaceId: tenant.workspaceId, provider: 'github', config: { repo: 'acme/widgets', baseUrl: github.url }, token: TOKEN,
    });
  });
  afterAll(async () => {
    await api?.close();
    await github?.close();
  });

  const similar = (body: Record<string, unknown>, prefix = '/v1') => api.post(`${prefix}/findsimilar`, body, tenant);

  authRules(() => ({ api, tenant, other }), { path: '/findsimilar', body: () => ({ id: ids[0] }), headerRequired: true });

  it('Shape A: source {id, title, type, cluster?}, similar items with vectorSimilarity and sameCluster, meta {total, took, inputEmbedding}', async () => {
    const res = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0 });
    expect(res.status).toBe(200);
    expect(res.body.source).toMatchObject({ id: idOf(ids, 'crashIssue'), title: 'Crash when the config file is empty', type: 'issue' });
    expect(res.body.meta).toMatchObject({ total: expect.any(Number), took: expect.any(Number), inputEmbedding: { found: true, generated: false } });
    expect(res.body.similar.length).toBeGreaterThan(0);
    for (const s of res.body.similar) {
      expect(s).toMatchObject({ id: expect.any(String), title: expect.any(String), url: expect.any(String), score: expect.any(Number), vectorSimilarity: expect.any(Number), sameCluster: expect.any(Boolean), source: expect.any(String), type: expect.any(String) });
      expect(s).not.toHaveProperty('similarity');
    }
  });

  it('Shape B on /api/v1: data {source, similar} with similarity and no sameCluster, meta {total, took}', async () => {
    const res = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0 }, '/api/v1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta', 'requestId']);
    expect(res.body.data.source).not.toHaveProperty('cluster');
    for (const s of res.body.data.similar) {
      expect(typeof s.similarity).toBe('number');
      expect(s).not.toHaveProperty('vectorSimilarity');
      expect(s).not.toHaveProperty('sameCluster');
    }
    expect(Object.keys(res.body.meta).sort()).toEqual(['took', 'total']);
  });

  it('a duplicate scores >= 0.90 and ranks first; every score is in [0, 1]', async () => {
    const res = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0, limit: 50 });
    expect(res.body.similar[0].id).toBe(duplicateId);
    expect(res.body.similar[0].score).toBeGreaterThanOrEqual(0.9);
    for (const s of res.body.similar) {
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(1);
    }
  });

  it('the input item never appears in similar', async () => {
    const res = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0, limit: 50 });
    expect(res.body.similar.map((s: { id: string }) => s.id)).not.toContain(idOf(ids, 'crashIssue'));
  });

  it('threshold keeps only results scoring at or above it', async () => {
    const res = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0.6, limit: 50 });
    for (const s of res.body.similar) expect(s.score).toBeGreaterThanOrEqual(0.6);
    const all = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0, limit: 50 });
    expect(all.body.similar.length).toBeGreaterThanOrEqual(res.body.similar.length);
  });

  it('limit caps the results; excludeIds removes ids; sameSourceOnly keeps the input\'s source', async () => {
    expect((await similar({ id: idOf(ids, 'crashIssue'), threshold: 0, limit: 2 })).body.similar.length).toBeLessThanOrEqual(2);
    const excluded = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0, limit: 50, excludeIds: [duplicateId] });
    expect(excluded.body.similar.map((s: { id: string }) => s.id)).not.toContain(duplicateId);
    const same = await similar({ id: idOf(ids, 'linearIssue'), threshold: 0, limit: 50, sameSourceOnly: true });
    for (const s of same.body.similar) expect(s.source).toBe('linear');
  });

  it('filters apply as in search', async () => {
    const res = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0, limit: 50, filters: { observationTypes: ['commit'] } });
    for (const s of res.body.similar) expect(s.type).toBe('commit');
  });

  it("never returns another workspace's items", async () => {
    const res = await similar({ id: idOf(ids, 'crashIssue'), threshold: 0, limit: 50 });
    for (const s of res.body.similar) expect(otherIds).not.toContain(s.id);
  });

  it('a url of an indexed item uses its stored embedding (inputEmbedding.found)', async () => {
    const res = await similar({ url: 'https://github.com/acme/widgets/pull/10', threshold: 0 });
    expect(res.status).toBe(200);
    expect(res.body.source.id).toBe(idOf(ids, 'fixPr'));
    expect(res.body.meta.inputEmbedding).toEqual({ found: true, generated: false });
  });

  it('a provider url a connection can fetch is fetched and embedded on the fly (inputEmbedding.generated)', async () => {
    // The connection's API base is the fake's address, so its web pages live on that host (as on GitHub Enterprise).
    const res = await similar({ url: `${github.url}/acme/widgets/issues/501`, threshold: 0 });
    expect(res.status).toBe(200);
    expect(res.body.meta.inputEmbedding).toEqual({ found: false, generated: true });
    expect(res.body.source.title).toBe('Formatting of case 1 changes on every run');
  });

  it('a url neither indexed nor fetchable is 404 NOT_FOUND {resource: "item"}', async () => {
    const res = await similar({ url: 'https://example.com/some/page' });
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 404, 'NOT_FOUND');
    expect(res.body.data).toEqual({ resource: 'item' });
  });

  it('an unknown id (or another workspace\'s) is 404 NOT_FOUND {resource: "item"}', async () => {
    for (const id of ['obs_does-not-exist', otherIds[0]]) {
      const res = await similar({ id });
      expect(res.status).toBe(404);
      expect(res.body.data).toEqual({ resource: 'item' });
    }
  });

  it('both id and url is 400 BAD_REQUEST with data {field, reason}', async () => {
    const res = await similar({ id: ids[0], url: 'https://github.com/acme/widgets/pull/10' });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'BAD_REQUEST');
    expect(res.body.data).toEqual({ field: 'id', reason: expect.stringContaining('exactly one') });
  });

  it('neither id nor url is 400 BAD_REQUEST with data {field, reason}', async () => {
    const res = await similar({ limit: 5 });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'BAD_REQUEST');
    expect(res.body.data).toMatchObject({ field: 'id', reason: expect.any(String) });
  });

  for (const [body, field] of [
    [{ id: 'obs_x', limit: 0 }, 'limit'],
    [{ id: 'obs_x', limit: 51 }, 'limit'],
    [{ id: 'obs_x', threshold: -0.1 }, 'threshold'],
    [{ id: 'obs_x', threshold: 1.5 }, 'threshold'],
    [{ id: 'obs_x', sameSourceOnly: 'yes' }, 'sameSourceOnly'],
    [{ id: 'obs_x', excludeIds: 'obs_y' }, 'excludeIds'],
    [{ url: 'not a url' }, 'url'],
    [{ id: 'obs_x', filters: { dateRange: { end: '2024-13-45' } } }, 'filters.dateRange.end'],
  ] as const) {
    it(`${JSON.stringify(body)} is 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await similar(body);
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'VALIDATION_ERROR');
      expect(res.body.data.fields).toContain(field);
    });
  }

  it('limit 50 and threshold 0 and 1 are accepted (inclusive bounds)', async () => {
    expect((await similar({ id: ids[0], limit: 50, threshold: 0 })).status).toBe(200);
    const strict = await similar({ id: ids[0], threshold: 1 });
    expect(strict.status).toBe(200);
    for (const s of strict.body.similar) expect(s.score).toBe(1);
  });
});
