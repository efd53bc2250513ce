/**
 * Rules shared by every operation (spec sections 4 preamble, 7, 9) and the published contract:
 * OpenAPI 3.1 at /v1/openapi.json, generated from the zod schemas, and the reference that renders it at /docs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from './support/rules.js';
import { backends, startApi, type Api, type Body, type Tenant } from './support/server.js';

const OPERATIONS = ['/search', '/contents', '/findsimilar', '/related', '/proxy/search', '/proxy/call'];

describe.each(backends())('query API contract ($name)', (backend) => {
  let api: Api;
  let tenant: Tenant;

  beforeAll(async () => {
    api = await startApi(backend);
    tenant = await api.tenant();
  });
  afterAll(async () => api?.close());

  it('GET /v1/openapi.json is a public OpenAPI 3.1 document with all six operations on both prefixes', async () => {
    const res = await fetch(`${api.base}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, { post: { responses: Record<string, unknown> } }>; components: { schemas: Body } };
    expect(doc.openapi).toBe('3.1.0');
    for (const op of OPERATIONS) {
      expect(doc.paths[`/v1${op}`]?.post).toBeDefined();
      expect(doc.paths[`/api/v1${op}`]?.post).toBeDefined();
    }
    expect(doc.paths['/v1/search']!.post.responses['200']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/SearchResponseA' } } } });
    expect(doc.paths['/api/v1/search']!.post.responses['200']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/SearchResponseB' } } } });
  });

  it('the OpenAPI schemas carry the spec bounds and defaults (generated from the same zod schemas that validate)', async () => {
    const doc = (await (await fetch(`${api.base}/v1/openapi.json`)).json()) as { components: { schemas: Body } };
    const s = doc.components.schemas;
    expect(s.SearchRequest.properties.limit).toMatchObject({ minimum: 1, maximum: 100, default: 10 });
    expect(s.SearchRequest.properties.mode).toMatchObject({ enum: ['fast', 'balanced', 'thorough'], default: 'balanced' });
    expect(s.SearchRequest.required).toEqual(['query']);
    expect(s.ContentsRequest.properties.ids).toMatchObject({ minItems: 1, maxItems: 50 });
    expect(s.FindSimilarRequest.properties.limit).toMatchObject({ minimum: 1, maximum: 50, default: 10 });
    expect(s.FindSimilarRequest.properties.threshold).toMatchObject({ minimum: 0, maximum: 1, default: 0.5 });
    expect(s.RelatedRequest.properties.depth).toMatchObject({ minimum: 1, maximum: 3, default: 1 });
    expect(s.ErrorBody.required).toEqual(expect.arrayContaining(['error', 'code', 'message', 'status', 'defined', 'data', 'requestId']));
  });

  it('GET /docs is the interactive reference (Redoc) over the OpenAPI document, its script served here, not from a CDN', async () => {
    const res = await fetch(`${api.base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toContain('<redoc spec-url="/v1/openapi.json"');
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['/docs/redoc.standalone.js']);
    const script = await fetch(`${api.base}${scripts[0]}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    const js = await script.text();
    expect(js.length).toBeGreaterThan(500_000);
    expect(js).toContain('Redoc');
  });

  it('the OpenAPI document has the operator API (/admin/*, /metrics) under the admin token', async () => {
    const doc = (await (await fetch(`${api.base}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security: unknown; requestBody?: { content: Body } }>>;
      components: { securitySchemes: Body; schemas: Body };
    };
    const expected: [string, string][] = [
      ['post', '/admin/workspaces'], ['get', '/admin/workspaces'], ['delete', '/admin/workspaces/{id}'], ['post', '/admin/workspaces/{id}/keys'],
      ['get', '/admin/keys'], ['delete', '/admin/keys/{id}'], ['post', '/admin/keys/{id}/rotate'], ['get', '/admin/status'],
      ['post', '/admin/connections'], ['get', '/admin/connections'], ['get', '/admin/connections/{id}'], ['delete', '/admin/connections/{id}'],
      ['post', '/admin/connections/{id}/backfill'], ['post', '/admin/imports'], ['get', '/admin/imports/{id}'], ['get', '/metrics'],
    ];
    for (const [method, path] of expected) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
      expect(doc.paths[path]![method]!.security).toEqual([{ adminToken: [] }]);
    }
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/search']!.post!.security).toEqual([{ bearer: [] }]);
    // The request bodies come from the schemas the routes parse: the import's fields and the connection providers.
    expect(doc.paths['/admin/imports']!.post!.requestBody!.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AdminCreateImport' });
    expect(doc.components.schemas.AdminCreateImport.required).toEqual(expect.arrayContaining(['workspaceId', 'provider', 'repo', 'content']));
    expect(JSON.stringify(doc.components.schemas.AdminCreateConnection)).toMatch(/"github".*"linear".*"vercel"/);
  });

  it('an unknown route is 404 NOT_FOUND in the documented error body', async () => {
    const res = await api.post('/v1/nothing-here', {}, tenant);
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 404, 'NOT_FOUND');
  });

  it('an unknown body field is 400 VALIDATION_ERROR naming that field, on both prefixes', async () => {
    for (const prefix of ['/v1', '/api/v1']) {
      const typo = await api.post(`${prefix}/search`, { query: 'x', limt: 5 }, tenant);
      expect(typo.status).toBe(400);
      expectErrorBody(typo.body, 400, 'VALIDATION_ERROR');
      expect(typo.body.data.fields, prefix).toEqual(['limt']);
      expect(typo.body.message).toContain('limt');
      const nested = await api.post(`${prefix}/search`, { query: 'x', filters: { sourceType: ['github'] }, lmit: 1, offst: 2 }, tenant);
      expect(nested.status).toBe(400);
      expect([...nested.body.data.fields].sort(), prefix).toEqual(['filters.sourceType', 'lmit', 'offst']);
    }
  });

  it('a sane incoming X-Request-Id is echoed in the header and body', async () => {
    const res = await fetch(`${api.base}/v1/contents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.key}`, 'x-request-id': 'client-trace-12345' },
      body: JSON.stringify({ ids: ['obs_x'] }),
    });
    expect(res.headers.get('x-request-id')).toBe('client-trace-12345');
    expect(((await res.json()) as { requestId: string }).requestId).toBe('client-trace-12345');
  });

  it('nothing a client sends produces a 500 or a stack trace', async () => {
    const hostile: unknown[] = [
      {}, { query: null }, { query: 'x'.repeat(5000) }, { ids: null }, { id: {} }, { url: 'javascript:alert(1)' }, { action: 'x', params: 'y' },
      { __proto__: { admin: true } }, { constructor: { prototype: { x: 1 } } }, { query: 'x', limit: 1e308 }, { query: 'x', offset: Number.MAX_SAFE_INTEGER },
      { query: 'x', filters: { dateRange: { start: '2024-01-01T00:00:00Z', end: '1999-01-01T00:00:00Z' } } }, { id: 'obs_x', depth: 3, limit: 200, types: [] },
      { query: "'; DROP TABLE items; --" }, { ids: ["obs_x' OR '1'='1"] }, { id: "obs_x' OR '1'='1" }, { query: '\u0000\uffff' },
    ];
    for (const op of OPERATIONS) {
      for (const body of hostile) {
        for (const prefix of ['/v1', '/api/v1']) {
          const res = await api.post(`${prefix}${op}`, body, tenant);
          expect(res.status, `${prefix}${op} ${JSON.stringify(body).slice(0, 80)}`).toBeLessThan(500);
          expect(JSON.stringify(res.body)).not.toMatch(/\n\s+at /);
        }
      }
    }
  });
});
