/**
 * Issue 18 over HTTP: every bad input a documented 4xx. NUL and lone surrogates in any request field,
 * uncapped arrays, bodies over the limit without a key, signed but malformed webhooks, and throttling.
 */
import { execFile } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from '@engram/stores';
import { ADMIN_TOKEN, startFullServer, type FullServer } from './support/fullServer.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response JSON
type Body = Record<string, any>;

async function call(base: string, path: string, init: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string>; method?: string } = {}) {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const text = await res.text();
  let body: Body = {};
  try {
    body = text ? (JSON.parse(text) as Body) : {};
  } catch {
    body = { unparsed: text };
  }
  return { status: res.status, body, headers: res.headers };
}

const expectErrorBody = (body: Body, code: string, status: number) => {
  expect(body).toMatchObject({ error: code, code, status, defined: true });
  expect(typeof body.message).toBe('string');
  expect(typeof body.requestId).toBe('string');
};

describe('hardening over HTTP', () => {
  let s: FullServer;
  let t: { workspaceId: string; key: string };
  const auth = () => ({ authorization: `Bearer ${t.key}`, 'x-workspace-id': t.workspaceId });

  beforeAll(async () => {
    s = await startFullServer();
    t = await s.tenant();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  const unstorable: [string, string][] = [['NUL', 'a\u0000b'], ['lone surrogate', 'a\ud800b']];
  const cases: { path: string; body: (v: string) => unknown; field: string }[] = [
    { path: 'search', body: (v) => ({ query: 'fix', filters: { actorNames: [v] } }), field: 'filters.actorNames.0' },
    { path: 'search', body: (v) => ({ query: 'fix', filters: { sourceTypes: [v] } }), field: 'filters.sourceTypes.0' },
    { path: 'search', body: (v) => ({ query: 'fix', filters: { observationTypes: [v] } }), field: 'filters.observationTypes.0' },
    { path: 'search', body: (v) => ({ query: `fix ${v}` }), field: 'query' },
    { path: 'findsimilar', body: (v) => ({ id: v }), field: 'id' },
    { path: 'findsimilar', body: (v) => ({ id: 'obs_x', excludeIds: [v] }), field: 'excludeIds.0' },
    { path: 'findsimilar', body: (v) => ({ id: 'obs_x', filters: { actorNames: [v] } }), field: 'filters.actorNames.0' },
    { path: 'related', body: (v) => ({ id: v }), field: 'id' },
    { path: 'related', body: (v) => ({ id: 'obs_x', types: [v] }), field: 'types.0' },
    { path: 'contents', body: (v) => ({ ids: [v] }), field: 'ids.0' },
    { path: 'proxy/call', body: (v) => ({ action: 'github.get-pull-request', params: { number: v } }), field: 'params.number' },
  ];

  it.each(['/v1', '/api/v1'])('%s: NUL and lone surrogates in any field are 400 VALIDATION_ERROR naming the field', async (prefix) => {
    for (const [label, value] of unstorable) {
      for (const c of cases) {
        const res = await call(s.base, `${prefix}/${c.path}`, { body: c.body(value), headers: auth() });
        expect(res.status, `${label} in ${c.path} ${c.field}`).toBe(400);
        expectErrorBody(res.body, 'VALIDATION_ERROR', 400);
        expect(res.body.data.fields, `${label} in ${c.path}`).toContain(c.field);
      }
    }
    expect((await call(s.base, '/healthz', { method: 'GET' })).status).toBe(200);
  });

  it('every request array is capped: 60,000 actor names are a 400, not a scan', async () => {
    const many = Array.from({ length: 60_000 }, (_, i) => `user${i}`);
    const search = await call(s.base, '/v1/search', { body: { query: 'fix', filters: { actorNames: many } }, headers: auth() });
    expect(search.status).toBe(400);
    expect(search.body.data.fields).toContain('filters.actorNames');
    const types = await call(s.base, '/v1/search', { body: { query: 'fix', filters: { sourceTypes: Array(21).fill('github') } }, headers: auth() });
    expect(types.body.data.fields).toContain('filters.sourceTypes');
    const edges = await call(s.base, '/v1/related', { body: { id: 'obs_x', types: Array(21).fill('fixes') }, headers: auth() });
    expect(edges.body.data.fields).toContain('types');
    const params = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, 'x']));
    const proxy = await call(s.base, '/v1/proxy/call', { body: { action: 'github.list-pull-requests', params }, headers: auth() });
    expect(proxy.status).toBe(400);
    expect(proxy.body.data.fields).toContain('params');
  });

  it('a 20 MB body without a key is 401, not 413; with a key it is 413', async () => {
    const huge = `{"query":"${'x'.repeat(20_000_000)}"}`;
    const anonymous = await call(s.base, '/v1/search', { raw: huge, headers: { 'x-workspace-id': t.workspaceId } });
    expect(anonymous.status).toBe(401);
    expectErrorBody(anonymous.body, 'UNAUTHORIZED', 401);
    const badKey = await call(s.base, '/v1/search', { raw: huge, headers: { authorization: 'Bearer egk_wrong', 'x-workspace-id': t.workspaceId } });
    expect(badKey.status).toBe(401);
    const admin = await call(s.base, '/admin/workspaces', { raw: huge, headers: { authorization: 'Bearer wrong-admin-token' } });
    expect(admin.status).toBe(401);
    const keyed = await call(s.base, '/v1/search', { raw: huge, headers: auth() });
    expect(keyed.status).toBe(413);
    expect(keyed.body.status).toBe(413);
  });

  it('webhooks: a signed malformed delivery is 400 in the error body; an unsigned body over the limit never reaches a parser', async () => {
    const ws = await s.tenant();
    const secret = 'whsec_http_hardening';
    await createConnection(s.runtime.db, s.runtime.secretBox, { workspaceId: ws.workspaceId, provider: 'github', config: { repo: 'acme/widgets' }, token: 'ghp_x', webhookSecret: secret });
    const raw = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/widgets' }, commits: 'notarray' });
    const signature = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    const headers = { 'x-github-event': 'push', 'x-github-delivery': randomUUID() };
    const malformed = await call(s.base, '/webhooks/github', { raw, headers: { ...headers, 'x-hub-signature-256': signature } });
    expect(malformed.status).toBe(400);
    expectErrorBody(malformed.body, 'VALIDATION_ERROR', 400);
    expect(malformed.body.data.fields).toContain('commits');
    const junk = await call(s.base, '/webhooks/github', { raw, headers: { ...headers, 'x-hub-signature-256': `${signature},junk` } });
    expect(junk.status).toBe(401);
    expectErrorBody(junk.body, 'UNAUTHORIZED', 401);
    const big = await call(s.base, '/webhooks/github', { raw: Buffer.alloc(25_000_000, 0x20), headers: { ...headers, 'x-hub-signature-256': signature } });
    expect(big.status).toBe(413);
    expect((await call(s.base, '/healthz', { method: 'GET' })).status).toBe(200);
  });

  it('the CLI exits non-zero when an import has invalid entries (the good ones go in) and on a non-JSON file', async () => {
    const ws = await s.tenant();
    const sha = () => randomBytes(20).toString('hex');
    const commit = (message: string, id = sha()) => ({
      type: 'commit', sha: id, html_url: `https://github.com/acme/widgets/commit/${id}`,
      commit: { message, author: { name: 'Ana', email: 'ana@example.com', date: '2026-11-01T10:00:00Z' }, committer: { name: 'Ana', email: 'ana@example.com', date: '2026-11-01T10:00:00Z' } },
    });
    const file = join(s.dataDir, 'corpus.jsonl');
    await writeFile(file, [commit('good one'), commit('bad \u0000 one'), commit('good two')].map((o) => JSON.stringify(o)).join('\n'));
    const cli = (args: string[]) =>
      promisify(execFile)('node', ['services/cli/bin/engram.js', '--url', s.base, '--admin-token', ADMIN_TOKEN, '--json', ...args], { cwd: join(import.meta.dirname, '../../..') }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const mixed = await cli(['import', 'github', '--workspace', ws.workspaceId, '--repo', 'acme/widgets', '--file', file]);
    expect(mixed.code).toBe(1);
    expect(JSON.parse(mixed.stdout)).toMatchObject({ received: 3, staged: 2, invalid: 1 });
    expect(mixed.stderr).toMatch(/1 of 3 objects were invalid/);
    const notJson = join(s.dataDir, 'notes.txt');
    await writeFile(notJson, 'just some notes\n');
    const bad = await cli(['import', 'github', '--workspace', ws.workspaceId, '--repo', 'acme/widgets', '--file', notJson]);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(/JSON/);
  }, 120_000);

  it('imports posted at once each stage their whole file, and one that is not JSON fails alone', async () => {
    const ws = await s.tenant();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const file = (repo: string, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const sha = randomBytes(20).toString('hex');
        const who = { name: 'Ana', email: 'ana@example.com', date: `2026-11-0${1 + (i % 9)}T10:00:00Z` };
        return JSON.stringify({ type: 'commit', sha, html_url: `https://github.com/${repo}/commit/${sha}`, commit: { message: `change ${i} in ${repo}`, author: who, committer: who } });
      }).join('\n');
    const post = (repo: string, content: string) => call(s.base, '/admin/imports', { headers: admin, body: { workspaceId: ws.workspaceId, provider: 'github', repo, content } });
    const [first, broken, second] = await Promise.all([post('acme/one', file('acme/one', 700)), post('acme/two', 'not json\nnor this\n'), post('acme/three', file('acme/three', 40))]);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ received: 700, staged: 700, inserted: 700, invalid: 0 });
    expect(broken.status).toBe(400);
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ received: 40, staged: 40, inserted: 40, invalid: 0 });
    for (const [{ body }, events] of [[first, 700], [second, 40]] as const) {
      const progress = await call(s.base, `/admin/imports/${body.importId}`, { method: 'GET', headers: admin });
      expect(progress.status).toBe(200);
      expect(progress.body.events).toBe(events);
    }
  }, 120_000);
});

describe('rate limits', () => {
  let s: FullServer;
  beforeAll(async () => {
    s = await startFullServer({ RATE_LIMIT_KEY_PER_SECOND: '5', RATE_LIMIT_IP_PER_SECOND: '5', RATE_LIMIT_KEY_CONCURRENCY: '0' });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('a key over its rate gets 429 with Retry-After and the error body; another key is not affected', async () => {
    const [a, b] = [await s.tenant(), await s.tenant()];
    const headers = (x: { key: string; workspaceId: string }) => ({ authorization: `Bearer ${x.key}`, 'x-workspace-id': x.workspaceId });
    const answers = await Promise.all(Array.from({ length: 15 }, () => call(s.base, '/v1/contents', { body: { ids: ['obs_none'] }, headers: headers(a) })));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(5);
    expectErrorBody(limited[0]!.body, 'RATE_LIMITED', 429);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(s.base, '/v1/contents', { body: { ids: ['obs_none'] }, headers: headers(b) })).status).toBe(200);
  });

  it('unauthenticated requests are limited per IP: wrong keys, webhooks', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => call(s.base, '/v1/search', { body: { query: 'x' }, headers: { authorization: 'Bearer egk_guess' } })));
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(answers.every((r) => r.status === 401 || r.status === 429)).toBe(true);
    await new Promise((r) => setTimeout(r, 1_100));
    const hooks = await Promise.all(Array.from({ length: 12 }, () => call(s.base, '/webhooks/github', { raw: '{}', headers: { 'x-github-event': 'ping' } })));
    expect(hooks.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  });
});
