import { afterEach, describe, expect, it } from 'vitest';
import { fakeLinearId, startFakeLinear, type FakeLinear } from '../../../test/fakes/linear/index.js';
import { createLinearConnector } from '../src/linear/index.js';

const apiKey = 'lin_api_proxy_test';
let fake: FakeLinear | undefined;
afterEach(async () => { await fake?.close(); fake = undefined; });

async function connector(teamKey?: string) {
  fake = await startFakeLinear({ apiKey });
  return createLinearConnector({ apiKey, apiUrl: fake.url, teamKey });
}

const run = async (linear: ReturnType<typeof createLinearConnector>, name: string, params: Record<string, unknown>) => {
  const action = linear.actions().find((a) => a.action === name)!;
  return action.run(action.params.parse(params));
};

describe('Linear fetchByUrl', () => {
  it('fetches and normalises an issue from its linear.app URL', async () => {
    const linear = await connector('ENG');
    const event = await linear.fetchByUrl('https://linear.app/acme/issue/ENG-12/playground-build-fails-on-preview-deployments');
    expect(event).toMatchObject({ type: 'issue', keys: ['linear:ENG-12'], title: 'Playground build fails on preview deployments', state: 'In Progress' });
  });

  it('returns null for unknown issues, other teams and non-Linear URLs', async () => {
    const linear = await connector('ENG');
    expect(await linear.fetchByUrl('https://linear.app/acme/issue/ENG-999/nope')).toBeNull();
    expect(await linear.fetchByUrl('https://linear.app/acme/issue/OPS-3')).toBeNull();
    expect(await linear.fetchByUrl('https://github.com/prettier/prettier/pull/15000')).toBeNull();
    expect(fake!.state.operations).toEqual(['EngramIssue']);
  });
});

describe('Linear proxy', () => {
  it('advertises the team as a resource and four described actions', async () => {
    const linear = await connector('eng');
    expect(linear.resources()).toEqual([{ name: 'ENG', params: { teamKey: 'ENG' }, syncing: ['issues', 'comments', 'projects'] }]);
    expect(linear.actions().map((a) => a.action)).toEqual(['linear.get-issue', 'linear.list-issues', 'linear.search-issues', 'linear.list-projects']);
    for (const a of linear.actions()) expect(a.description.length).toBeGreaterThan(20);
  });

  it('gets an issue by identifier or UUID, and answers 404 for a missing one', async () => {
    const linear = await connector('ENG');
    const byIdentifier = await run(linear, 'linear.get-issue', { id: 'ENG-4' });
    expect(byIdentifier.status).toBe(200);
    expect(byIdentifier.data).toMatchObject({ issue: { identifier: 'ENG-4', title: 'Upgrade meriyah parser to v7.2' } });
    const byUuid = await run(linear, 'linear.get-issue', { id: fakeLinearId('issue', 4) });
    expect(byUuid.data).toEqual(byIdentifier.data);
    const missing = await run(linear, 'linear.get-issue', { id: 'ENG-404' });
    expect(missing.status).toBe(404);
  });

  it('lists issues filtered by state and assignee, with a cursor for the next page', async () => {
    const linear = await connector('ENG');
    const result = await run(linear, 'linear.list-issues', { state: 'in progress', first: 2 });
    const { issues } = result.data as { issues: { nodes: Array<{ identifier: string; state: { name: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string } } };
    expect(issues.nodes.map((n) => n.identifier)).toEqual(['ENG-12', 'ENG-15']);
    expect(issues.pageInfo.hasNextPage).toBe(true);
    const next = await run(linear, 'linear.list-issues', { state: 'In Progress', first: 10, after: issues.pageInfo.endCursor });
    expect((next.data as typeof result.data & { issues: { nodes: Array<{ identifier: string }> } }).issues.nodes.map((n) => n.identifier)).toEqual(['ENG-26', 'ENG-32']);
    const bens = await run(linear, 'linear.list-issues', { assigneeEmail: 'ben@acme.dev', label: 'regression' });
    expect((bens.data as { issues: { nodes: Array<{ identifier: string }> } }).issues.nodes.map((n) => n.identifier)).toEqual(['ENG-11']);
  });

  it('searches issues and lists projects; results carry rate-limit headers, never credentials', async () => {
    const linear = await connector('ENG');
    const search = await run(linear, 'linear.search-issues', { query: 'playground deploy' });
    const nodes = (search.data as { searchIssues: { nodes: Array<{ identifier: string }>; totalCount: number } }).searchIssues;
    expect(nodes.nodes.map((n) => n.identifier)).toEqual(['ENG-12', 'ENG-32', 'ENG-40']);
    expect(nodes.totalCount).toBe(3);
    const projects = await run(linear, 'linear.list-projects', {});
    expect((projects.data as { projects: { nodes: Array<{ name: string }> } }).projects.nodes.map((p) => p.name)).toHaveLength(2);
    expect(Object.keys(projects.headers).some((h) => /authorization|cookie/i.test(h))).toBe(false);
    expect(projects.headers['content-type']).toMatch(/application\/json/);
  });

  it('validates params with zod before any call', async () => {
    const linear = await connector('ENG');
    const list = linear.actions().find((a) => a.action === 'linear.list-issues')!;
    expect(() => list.params.parse({ first: 500 })).toThrow();
    expect(list.params.parse({})).toEqual({ first: 25 });
  });
});
