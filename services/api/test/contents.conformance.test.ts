/** Spec 4.2 (contents), 5 (auth), 7 (errors), 8 (1-50 ids), against a running server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, idOf, story } from './support/events.js';
import { authRules, expectErrorBody } from './support/rules.js';
import { backends, startApi, type Api, type Tenant } from './support/server.js';

describe.each(backends())('POST /v1/contents ($name)', (backend) => {
  let api: Api;
  let tenant: Tenant;
  let other: Tenant;
  let ids: string[];
  let otherIds: string[];

  beforeAll(async () => {
    api = await startApi(backend);
    tenant = await api.tenant();
    other = await api.tenant('other');
    ids = await api.index(tenant.workspaceId, allEvents());
    otherIds = await api.index(other.workspaceId, [story.crashIssue]);
  });
  afterAll(async () => api?.close());

  authRules(() => ({ api, tenant, other }), { path: '/contents', body: () => ({ ids: [ids[0]] }), headerRequired: false });

  it('Shape A: {items, missing, requestId} with the content item fields', async () => {
    const res = await api.post('/v1/contents', { ids: [idOf(ids, 'fixPr')] }, tenant);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['items', 'missing', 'requestId']);
    const item = res.body.items[0];
    expect(item).toMatchObject({
      id: idOf(ids, 'fixPr'),
      title: 'Fix crash on empty config file',
      url: 'https://github.com/acme/widgets/pull/10',
      source: 'github',
      type: 'pull_request',
      occurredAt: '2024-01-04T00:00:00.000Z',
    });
    expect(typeof item.snippet).toBe('string');
    expect(item.content).toContain('Fixes #9');
    expect(typeof item.metadata).toBe('object');
  });

  it('Shape B on /api/v1: {data: {items, missing}, meta: {total}, requestId}', async () => {
    const res = await api.post('/api/v1/contents', { ids: [ids[0], ids[1], 'obs_unknown'] }, tenant);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta', 'requestId']);
    expect(res.body.data.items).toHaveLength(2);
    expect(res.body.data.missing).toEqual(['obs_unknown']);
    expect(res.body.meta).toEqual({ total: 2 });
  });

  it('partial success: unknown ids go to missing and the rest are returned, in request order', async () => {
    const res = await api.post('/v1/contents', { ids: ['obs_nope', ids[2], 'doc_nope', ids[0]] }, tenant);
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[0]]);
    expect(res.body.missing).toEqual(['obs_nope', 'doc_nope']);
  });

  it('ids without a doc_/obs_ prefix are missing, not an error', async () => {
    const res = await api.post('/v1/contents', { ids: ['ws_abc', 'hello', ids[0]] }, tenant);
    expect(res.status).toBe(200);
    expect(res.body.missing).toEqual(['ws_abc', 'hello']);
    expect(res.body.items).toHaveLength(1);
  });

  it("another workspace's items are missing, never leaked", async () => {
    const res = await api.post('/v1/contents', { ids: otherIds }, tenant);
    expect(res.body.items).toEqual([]);
    expect(res.body.missing).toEqual(otherIds);
  });

  it('content is present only for observations; documents carry a snippet', async () => {
    const res = await api.post('/v1/contents', { ids: [idOf(ids, 'guide'), idOf(ids, 'crashIssue')] }, tenant);
    const [doc, obs] = res.body.items;
    expect(doc.id.startsWith('doc_')).toBe(true);
    expect(doc).not.toHaveProperty('content');
    expect(doc.snippet.length).toBeGreaterThan(0);
    expect(obs.id.startsWith('obs_')).toBe(true);
    expect(obs.content).toContain('empty widgets.config.json');
  });

  it('title may be null (an item without a title answers null, not a missing key)', async () => {
    const [untitled] = await api.index(tenant.workspaceId, [
      { ...story.crashIssue, externalId: 'github:acme/widgets:comment:1', type: 'comment', title: null, url: 'https://github.com/acme/widgets/issues/9#issuecomment-1', keys: [] },
    ]);
    const res = await api.post('/v1/contents', { ids: [untitled] }, tenant);
    expect(res.body.items[0]).toHaveProperty('title', null);
  });

  it('duplicate ids are answered once', async () => {
    const res = await api.post('/v1/contents', { ids: [ids[0], ids[0], 'obs_x', 'obs_x'] }, tenant);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.missing).toEqual(['obs_x']);
  });

  it('50 ids are accepted; 51 are 400 VALIDATION_ERROR naming ids', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => ids[i % ids.length]!);
    expect((await api.post('/v1/contents', { ids: fifty }, tenant)).status).toBe(200);
    const res = await api.post('/v1/contents', { ids: [...fifty, 'obs_extra'] }, tenant);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'VALIDATION_ERROR');
    expect(res.body.data.fields).toContain('ids');
  });

  for (const [body, field] of [
    [{ ids: [] }, 'ids'],
    [{}, 'ids'],
    [{ ids: 'obs_1' }, 'ids'],
    [{ ids: [1, 2] }, 'ids.0'],
    [{ ids: [''] }, 'ids.0'],
  ] as const) {
    it(`${JSON.stringify(body)} is 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await api.post('/v1/contents', body, tenant);
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'VALIDATION_ERROR');
      expect(res.body.data.fields).toContain(field);
    });
  }
});
