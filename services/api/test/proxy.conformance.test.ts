/**
 * Spec 4.5 / 4.6 (proxy search and call, alpha) and 2.6, against a running server with a real GitHub
 * connection pointing at the fake GitHub server.
 */
import { startFakeGitHub, syntheticIssues, type FakeGitHub } from '../../../test/fakes/github/index.js';
import { createConnection } from '@engram/stores';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authRules, expectErrorBody } from './support/rules.js';
import { backends, startApi, type Api, type Tenant } from './support/server.js';

const TOKEN = 'ghp_conformanceSecretToken0123456789';

describe.each(backends())('POST /v1/proxy/search and /v1/proxy/call ($name)', (backend) => {
  let api: Api;
  let github: FakeGitHub;
  let tenant: Tenant;
  let other: Tenant;
  let lonely: Tenant;
  let connectionId: string;
  let otherConnectionId: string;

  beforeAll(async () => {
    github = await startFakeGitHub({ repo: 'acme/widgets', items: syntheticIssues(5, { firstNumber: 1 }), token: TOKEN });
    api = await startApi(backend);
    tenant = await api.tenant();
    other = await api.tenant('other');
    lonely = await api.tenant('lonely');
    const config = { repo: 'acme/widgets', baseUrl: github.url };
    connectionId = (await createConnection(api.runtime.db, api.runtime.secretBox, { workspaceId: tenant.workspaceId, provider: 'github', config, token: TOKEN })).id;
    otherConnectionId = (await createConnection(api.runtime.db, api.runtime.secretBox, { workspaceId: other.workspaceId, provider: 'github', config, token: TOKEN })).id;
  });
  afterAll(async () => {
    await api?.close();
    await github?.close();
  });

  const call = (body: unknown, who: Tenant = tenant) => api.post('/v1/proxy/call', body, who);

  describe('proxy/search', () => {
    authRules(() => ({ api, tenant, other }), { path: '/proxy/search', body: () => ({}), headerRequired: false });

    it('takes no body and lists the workspace connection with its resources and actions', async () => {
      const res = await api.post('/v1/proxy/search', undefined, tenant);
      expect(res.status).toBe(200);
      expect(res.body.connections).toHaveLength(1);
      const [c] = res.body.connections;
      expect(c).toMatchObject({ id: connectionId, provider: 'github' });
      expect(c.resources).toEqual([{ name: 'acme/widgets', params: { owner: 'acme', repo: 'widgets' }, syncing: expect.arrayContaining(['pull_requests', 'issues', 'commits']) }]);
      const names = c.actions.map((a: { action: string }) => a.action);
      expect(names).toEqual(expect.arrayContaining(['github.list-pull-requests', 'github.get-issue']));
      for (const a of c.actions) {
        expect(a.action).toMatch(/^github\.[a-z]+(-[a-z]+)*$/);
        expect(a.params.every((p: unknown) => typeof p === 'string')).toBe(true);
        expect(a.description.length).toBeGreaterThan(0);
      }
      expect(c.actions.find((a: { action: string }) => a.action === 'github.get-issue').params).toEqual(['owner', 'repo', 'issue_number']);
    });

    it('never lists credentials', async () => {
      const res = await api.post('/v1/proxy/search', {}, tenant);
      expect(JSON.stringify(res.body)).not.toContain(TOKEN);
    });

    it('a workspace without connections answers an empty list; other workspaces stay invisible', async () => {
      const res = await api.post('/v1/proxy/search', {}, lonely);
      expect(res.body.connections).toEqual([]);
    });

    it('one shape on both prefixes', async () => {
      const a = await api.post('/v1/proxy/search', {}, tenant);
      const b = await api.post('/api/v1/proxy/search', {}, tenant);
      expect(b.body.connections).toEqual(a.body.connections);
    });
  });

  describe('proxy/call', () => {
    authRules(() => ({ api, tenant, other }), { path: '/proxy/call', body: () => ({ action: 'github.get-issue', params: { owner: 'acme', repo: 'widgets', issue_number: 1 } }), headerRequired: false });

    it('runs a listed action with resource params spread in and returns {status, data, headers}', async () => {
      const search = await api.post('/v1/proxy/search', {}, tenant);
      const resource = search.body.connections[0].resources[0];
      const res = await call({ action: 'github.get-issue', params: { ...resource.params, issue_number: 2 } });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(200);
      expect(res.body.data).toMatchObject({ number: 2, title: 'Formatting of case 1 changes on every run' });
      expect(typeof res.body.headers).toBe('object');
      for (const v of Object.values(res.body.headers)) expect(typeof v).toBe('string');
    });

    it('uses the credentials stored for the connection (the caller sends none) and echoes no credential or auth header', async () => {
      const before = github.state.unauthorized;
      const res = await call({ action: 'github.list-pull-requests', params: { owner: 'acme', repo: 'widgets', state: 'all' } });
      expect(res.body.status).toBe(200);
      expect(github.state.unauthorized).toBe(before);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(TOKEN);
      for (const name of Object.keys(res.body.headers)) expect(name).not.toMatch(/authorization|cookie|token/i);
    });

    it("passes the provider's own status through: a missing issue is status 404 inside a 200", async () => {
      const res = await call({ action: 'github.get-issue', params: { owner: 'acme', repo: 'widgets', issue_number: 999 } });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(404);
    });

    it('an action no connection offers is 404 NOT_FOUND {resource: "action"}', async () => {
      const res = await call({ action: 'github.delete-repository', params: {} });
      expect(res.status).toBe(404);
      expectErrorBody(res.body, 404, 'NOT_FOUND');
      expect(res.body.data).toEqual({ resource: 'action' });
      expect((await call({ action: 'linear.get-issue', params: { id: 'ENG-1' } })).status).toBe(404);
    });

    it('a workspace without connections cannot run any action', async () => {
      expect((await call({ action: 'github.get-issue', params: { owner: 'acme', repo: 'widgets', issue_number: 1 } }, lonely)).status).toBe(404);
    });

    it('params are validated against the action: 400 VALIDATION_ERROR naming params.<field>', async () => {
      const missing = await call({ action: 'github.get-issue', params: { owner: 'acme', repo: 'widgets' } });
      expect(missing.status).toBe(400);
      expectErrorBody(missing.body, 400, 'VALIDATION_ERROR');
      expect(missing.body.data.fields).toContain('params.issue_number');
      const wrongType = await call({ action: 'github.get-issue', params: { owner: 'acme', repo: 'widgets', issue_number: 'one' } });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.data.fields).toContain('params.issue_number');
    });

    it('connectionId selects the connection; another workspace\'s connection is 404 {resource: "connection"}', async () => {
      const ok = await call({ action: 'github.get-issue', connectionId, params: { owner: 'acme', repo: 'widgets', issue_number: 1 } });
      expect(ok.body.status).toBe(200);
      const foreign = await call({ action: 'github.get-issue', connectionId: otherConnectionId, params: { owner: 'acme', repo: 'widgets', issue_number: 1 } });
      expect(foreign.status).toBe(404);
      expect(foreign.body.data).toEqual({ resource: 'connection' });
    });

    for (const [body, field] of [
      [{}, 'action'],
      [{ action: '' }, 'action'],
      [{ action: 'github.get-issue', params: [1] }, 'params'],
    ] as const) {
      it(`${JSON.stringify(body)} is 400 VALIDATION_ERROR naming ${field}`, async () => {
        const res = await call(body);
        expect(res.status).toBe(400);
        expectErrorBody(res.body, 400, 'VALIDATION_ERROR');
        expect(res.body.data.fields).toContain(field);
      });
    }
  });
});
