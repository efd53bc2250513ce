/** The typed SDK (`@engram/sdk`) against a running server: results, and documented errors as EngramError. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngramClient, EngramError } from '@engram/sdk';
import { allEvents, story } from './support/events.js';
import { startApi, type Api, type Tenant } from './support/server.js';

describe('@engram/sdk', () => {
  let api: Api;
  let tenant: Tenant;
  let ids: string[];

  beforeAll(async () => {
    api = await startApi({ name: 'sdk', env: { DATABASE_URL: 'pglite://memory' } });
    tenant = await api.tenant();
    ids = await api.index(tenant.workspaceId, allEvents());
  });
  afterAll(async () => api?.close());

  const client = () => createEngramClient({ baseUrl: api.base, apiKey: tenant.key, workspaceId: tenant.workspaceId });

  it('searches, fetches contents and walks the related graph', async () => {
    const found = await client().search({ query: story.fixPr.title!, limit: 3, mode: 'fast' });
    expect(found.data[0]?.title).toBe(story.fixPr.title);
    const contents = await client().contents([found.data[0]!.id, 'obs_missing']);
    expect(contents.items.map((i) => i.id)).toEqual([found.data[0]!.id]);
    expect(contents.missing).toEqual(['obs_missing']);
    const graph = await client().related({ id: found.data[0]!.id });
    expect(graph.data.root.id).toBe(found.data[0]!.id);
    expect(ids.length).toBeGreaterThan(0);
  });

  it('walks every page of a search with searchPages, each result once', async () => {
    const first = await client().search({ query: 'parser', limit: 2, mode: 'fast' });
    const seen: string[] = [];
    for await (const page of client().searchPages({ query: 'parser', limit: 2, mode: 'fast' })) seen.push(...page.data.map((r) => r.id));
    expect(first.meta.total).toBeGreaterThan(2);
    expect(seen).toHaveLength(first.meta.total);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('raises documented errors as EngramError with code, status, data and requestId', async () => {
    const err = await client().search({ query: 'x', limit: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngramError);
    expect(err).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', data: { fields: ['limit'] } });
    expect((err as EngramError).requestId).toMatch(/^req_/);
    const unauthorized = await createEngramClient({ baseUrl: api.base, apiKey: 'egk_wrong', workspaceId: tenant.workspaceId }).contents(['obs_x']).catch((e: unknown) => e);
    expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});
