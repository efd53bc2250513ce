/** Rules every operation obeys (spec sections 5 and 7), registered as named tests for one operation. */
import { expect, it } from 'vitest';
import type { Api, Body, Tenant } from './server.js';

export interface OperationUnderTest {
  path: string;
  /** A valid body for the tenant. */
  body: () => unknown;
  /** Whether X-Workspace-ID is required (search, findsimilar) or optional (the key's workspace applies). */
  headerRequired: boolean;
}

/** The documented error body, readable by both reference clients. */
export function expectErrorBody(body: Body, status: number, code: string): void {
  expect(body).toMatchObject({ error: code, code, status, defined: true });
  expect(typeof body.message).toBe('string');
  expect(typeof body.requestId).toBe('string');
  expect(body).not.toHaveProperty('stack');
}

export function authRules(ctx: () => { api: Api; tenant: Tenant; other: Tenant }, op: OperationUnderTest): void {
  for (const prefix of ['/v1', '/api/v1']) {
    it(`${prefix}${op.path}: a missing Authorization header is 401 UNAUTHORIZED with data null`, async () => {
      const { api, tenant } = ctx();
      const res = await api.post(`${prefix}${op.path}`, op.body(), tenant, { key: null });
      expect(res.status).toBe(401);
      expectErrorBody(res.body, 401, 'UNAUTHORIZED');
      expect(res.body.data).toBeNull();
    });
    it(`${prefix}${op.path}: an invalid API key is 401 UNAUTHORIZED`, async () => {
      const { api, tenant } = ctx();
      const res = await api.post(`${prefix}${op.path}`, op.body(), tenant, { key: 'egk_not-a-real-key' });
      expect(res.status).toBe(401);
      expectErrorBody(res.body, 401, 'UNAUTHORIZED');
    });
    it(`${prefix}${op.path}: a key used on another workspace is 403 FORBIDDEN`, async () => {
      const { api, tenant, other } = ctx();
      const res = await api.post(`${prefix}${op.path}`, op.body(), tenant, { workspace: other.workspaceId });
      expect(res.status).toBe(403);
      expectErrorBody(res.body, 403, 'FORBIDDEN');
      expect(res.body.data).toBeNull();
    });
    it(`${prefix}${op.path}: a workspace that does not exist is 403 FORBIDDEN too (no probing for ids)`, async () => {
      const { api, tenant } = ctx();
      const res = await api.post(`${prefix}${op.path}`, op.body(), tenant, { workspace: 'ws_does-not-exist' });
      expect(res.status).toBe(403);
      expectErrorBody(res.body, 403, 'FORBIDDEN');
    });
  }
  if (op.headerRequired) {
    it(`${op.path}: without X-Workspace-ID the request is 400 BAD_REQUEST naming the header`, async () => {
      const { api, tenant } = ctx();
      const res = await api.post(`/v1${op.path}`, op.body(), tenant, { workspace: null });
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'BAD_REQUEST');
      expect(res.body.data).toMatchObject({ field: 'X-Workspace-ID' });
    });
  } else {
    it(`${op.path}: without X-Workspace-ID the key's own workspace applies`, async () => {
      const { api, tenant } = ctx();
      const res = await api.post(`/v1${op.path}`, op.body(), tenant, { workspace: null });
      expect(res.status).toBe(200);
    });
  }
  it(`${op.path}: malformed JSON is 400 BAD_REQUEST with data {field, reason}`, async () => {
    const { api, tenant } = ctx();
    const res = await api.post(`/v1${op.path}`, undefined, tenant, { raw: '{"oops": ' });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'BAD_REQUEST');
    expect(res.body.data).toMatchObject({ field: expect.any(String), reason: expect.any(String) });
  });
  it(`${op.path}: authentication answers before the body is judged: malformed JSON without a key is 401`, async () => {
    const { api } = ctx();
    const res = await api.post(`/v1${op.path}`, undefined, null, { raw: '{"oops": ' });
    expect(res.status).toBe(401);
    expectErrorBody(res.body, 401, 'UNAUTHORIZED');
  });
  it(`${op.path}: a JSON body that is not an object is 400 BAD_REQUEST, never a 500`, async () => {
    const { api, tenant } = ctx();
    for (const raw of ['[1,2]', '"text"', '42', 'null']) {
      const res = await api.post(`/v1${op.path}`, undefined, tenant, { raw });
      expect(res.status, raw).toBe(400);
    }
  });
  it(`${op.path}: an unknown body field is 400 VALIDATION_ERROR naming it`, async () => {
    const { api, tenant } = ctx();
    const body = { ...(op.body() as object), surprise: true };
    const res = await api.post(`/v1${op.path}`, body, tenant);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(res.body.data)).toContain('surprise');
  });
  it(`${op.path}: the requestId is in the body, the X-Request-Id header and the server log line`, async () => {
    const { api, tenant } = ctx();
    const res = await api.post(`/v1${op.path}`, op.body(), tenant);
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id');
    expect(id).toBeTruthy();
    expect(res.body.requestId).toBe(id);
    await new Promise((r) => setTimeout(r, 20));
    expect(api.logs.some((l) => l.requestId === id && l.msg === 'request' && l.status === 200)).toBe(true);
  });
}
