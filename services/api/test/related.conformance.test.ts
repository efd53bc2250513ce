/** Spec 4.4 (related, alpha) and 2.5 (graph objects), against a running server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, idOf, story } from './support/events.js';
import { authRules, expectErrorBody } from './support/rules.js';
import { backends, startApi, type Api, type Tenant } from './support/server.js';

interface Graph {
  data: { root: Record<string, unknown>; nodes: { id: string; isRoot: boolean }[]; edges: { source: string; target: string; type: string; linkingKey: string; confidence: number }[] };
  meta: { depth: number; nodeCount: number; edgeCount: number; took: number };
}

describe.each(backends())('POST /v1/related ($name)', (backend) => {
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
    otherIds = await api.index(other.workspaceId, [story.crashIssue, story.fixPr]);
  });
  afterAll(async () => api?.close());

  const related = async (body: Record<string, unknown>, prefix = '/v1') => {
    const res = await api.post(`${prefix}/related`, body, tenant);
    return { ...res, graph: res.body as Graph };
  };
  const nodeIds = (g: Graph) => g.data.nodes.map((n) => n.id);

  authRules(() => ({ api, tenant, other }), { path: '/related', body: () => ({ id: ids[0] }), headerRequired: false });

  it('answers data {root, nodes, edges}, meta {depth, nodeCount, edgeCount, took}, requestId', async () => {
    const { status, body, graph } = await related({ id: idOf(ids, 'crashIssue') });
    expect(status).toBe(200);
    expect(graph.data.root).toEqual({
      id: idOf(ids, 'crashIssue'),
      title: 'Crash when the config file is empty',
      source: 'github',
      type: 'issue',
      url: 'https://github.com/acme/widgets/issues/9',
      occurredAt: '2024-01-02T00:00:00.000Z',
    });
    expect(graph.meta).toMatchObject({ depth: 1, nodeCount: graph.data.nodes.length, edgeCount: graph.data.edges.length, took: expect.any(Number) });
    expect(typeof body.requestId).toBe('string');
  });

  it('the root is among the nodes with isRoot true, and it is the only root', async () => {
    const { graph } = await related({ id: idOf(ids, 'crashIssue'), depth: 2 });
    const roots = graph.data.nodes.filter((n) => n.isRoot);
    expect(roots.map((n) => n.id)).toEqual([idOf(ids, 'crashIssue')]);
    for (const n of graph.data.nodes) expect(Object.keys(n).sort()).toEqual(['id', 'isRoot', 'occurredAt', 'source', 'title', 'type', 'url']);
  });

  it('depth 1 (default) reaches the fixing PR but not the deployment three hops away', async () => {
    const { graph } = await related({ id: idOf(ids, 'crashIssue') });
    expect(nodeIds(graph)).toContain(idOf(ids, 'fixPr'));
    expect(nodeIds(graph)).not.toContain(idOf(ids, 'deployment'));
  });

  it('edges are followed in both directions: from a commit back to its PR and on to the issue and the Linear issue', async () => {
    const { graph } = await related({ id: idOf(ids, 'testCommit'), depth: 2 });
    expect(nodeIds(graph)).toEqual(expect.arrayContaining([idOf(ids, 'fixPr'), idOf(ids, 'crashIssue'), idOf(ids, 'linearIssue')]));
  });

  it('depth 3 reaches the deployment built from the merge commit', async () => {
    const { graph } = await related({ id: idOf(ids, 'crashIssue'), depth: 3 });
    expect(nodeIds(graph)).toContain(idOf(ids, 'deployment'));
    expect(graph.meta.depth).toBe(3);
  });

  it('edges only connect returned nodes and carry source, target, type, linkingKey, confidence', async () => {
    for (const body of [{ id: idOf(ids, 'crashIssue'), depth: 3 }, { id: idOf(ids, 'crashIssue'), depth: 3, limit: 3 }]) {
      const { graph } = await related(body);
      const present = new Set(nodeIds(graph));
      expect(graph.data.edges.length).toBeGreaterThan(0);
      for (const e of graph.data.edges) {
        expect(present.has(e.source) && present.has(e.target)).toBe(true);
        expect(typeof e.type).toBe('string');
        expect(typeof e.linkingKey).toBe('string');
        expect(e.confidence).toBeGreaterThan(0);
        expect(e.confidence).toBeLessThanOrEqual(1);
      }
    }
  });

  it('every returned node is connected to the root through returned edges', async () => {
    const { graph } = await related({ id: idOf(ids, 'crashIssue'), depth: 3 });
    const reached = new Set([idOf(ids, 'crashIssue')]);
    for (let changed = true; changed; ) {
      changed = false;
      for (const e of graph.data.edges) {
        if (reached.has(e.source) !== reached.has(e.target)) {
          reached.add(e.source).add(e.target);
          changed = true;
        }
      }
    }
    expect([...reached].sort()).toEqual(nodeIds(graph).sort());
  });

  it('limit caps the nodes, root included', async () => {
    const { graph } = await related({ id: idOf(ids, 'crashIssue'), depth: 3, limit: 2 });
    expect(graph.data.nodes).toHaveLength(2);
    expect(graph.meta.nodeCount).toBe(2);
    expect(graph.data.nodes[0]!.isRoot).toBe(true);
  });

  it('types restricts the edges followed and returned', async () => {
    const full = (await related({ id: idOf(ids, 'crashIssue'), depth: 3 })).graph;
    const fixType = full.data.edges.find((e) => [e.source, e.target].includes(idOf(ids, 'crashIssue')))!.type;
    const only = (await related({ id: idOf(ids, 'crashIssue'), depth: 3, types: [fixType] })).graph;
    for (const e of only.data.edges) expect(e.type).toBe(fixType);
    expect(only.data.nodes.length).toBeLessThan(full.data.nodes.length);
    const none = (await related({ id: idOf(ids, 'crashIssue'), depth: 3, types: ['no_such_type'] })).graph;
    expect(nodeIds(none)).toEqual([idOf(ids, 'crashIssue')]);
    expect(none.data.edges).toEqual([]);
  });

  it('one shape on both prefixes', async () => {
    const a = await related({ id: idOf(ids, 'crashIssue'), depth: 2 });
    const b = await related({ id: idOf(ids, 'crashIssue'), depth: 2 }, '/api/v1');
    expect(b.graph.data).toEqual(a.graph.data);
  });

  it('an unknown id is 404 NOT_FOUND with data {resource: "item"}', async () => {
    const res = await related({ id: 'obs_does-not-exist' });
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 404, 'NOT_FOUND');
    expect(res.body.data).toEqual({ resource: 'item' });
  });

  it("another workspace's item is 404, not its graph", async () => {
    expect((await related({ id: otherIds[0] })).status).toBe(404);
  });

  it('an issue the item fixes but that is not indexed is a stub node with a fixes edge; the stub is not an item', async () => {
    const own = await api.tenant('stubs');
    const [pr] = await api.index(own.workspaceId, [{ ...story.fixPr, body: 'Treat an empty config file as the default configuration.\n\nFixes #77', refs: [] }]);
    const res = await api.post('/v1/related', { id: pr }, own);
    const graph = res.body as Graph;
    const stub = 'ref:gh:acme/widgets#77';
    expect(graph.data.nodes).toContainEqual({
      id: stub,
      title: 'acme/widgets#77',
      source: 'github',
      type: 'issue',
      url: 'https://github.com/acme/widgets/issues/77',
      occurredAt: story.fixPr.occurredAt,
      isRoot: false,
    });
    expect(graph.data.edges).toContainEqual({ source: pr, target: stub, type: 'fixes', linkingKey: 'gh:acme/widgets#77', confidence: expect.any(Number) });
    expect((await api.post('/v1/contents', { ids: [stub] }, own)).body.missing).toEqual([stub]);
    const asRoot = await api.post('/v1/related', { id: stub }, own);
    expect(asRoot.status).toBe(404);
    expect(asRoot.body.data).toEqual({ resource: 'item' });
  });

  for (const [body, field] of [
    [{}, 'id'],
    [{ id: 'obs_x', depth: 0 }, 'depth'],
    [{ id: 'obs_x', depth: 4 }, 'depth'],
    [{ id: 'obs_x', limit: 0 }, 'limit'],
    [{ id: 'obs_x', limit: 201 }, 'limit'],
    [{ id: 'obs_x', types: 'fixes' }, 'types'],
  ] as const) {
    it(`${JSON.stringify(body)} is 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await related(body);
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'VALIDATION_ERROR');
      expect(res.body.data.fields).toContain(field);
    });
  }
});
