/**
 * The proxy's bounds (issue 18): a provider that never answers is cut at the deadline and the abort
 * reaches the provider connection; a huge response is refused without being returned; every parameter
 * is validated per action; a search cannot leave the connection's repository; a ref cannot walk the path.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { callProxyAction, createGitHubConnector, type ProxyDeps } from '../src/index.js';
import { openHarness, type Harness } from './harness.js';

const REPO = 'acme/widgets';

describe('proxy limits', () => {
  let h: Harness;
  let server: Server;
  let base = '';
  const seen: { url: string; closedEarly: boolean }[] = [];
  let mode: 'hang' | 'huge' | 'huge-chunked' | 'ok' = 'ok';

  beforeAll(async () => {
    h = await openHarness();
    server = createServer((req: IncomingMessage, res) => {
      const entry = { url: req.url ?? '', closedEarly: false };
      seen.push(entry);
      res.on('close', () => {
        if (!res.writableFinished) entry.closedEarly = true;
      });
      if (mode === 'hang') return; // never answers
      const big = JSON.stringify({ number: 1, body: 'x'.repeat(3_000_000) });
      if (mode === 'huge') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big);
      } else if (mode === 'huge-chunked') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(big.slice(0, 1_500_000));
        res.end(big.slice(1_500_000));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ total_count: 0, items: [] }));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await h?.close();
  });

  async function setup(limits: { timeoutMs?: number; maxResponseBytes?: number } = {}) {
    const workspaceId = await testWorkspace(h.db, 'proxy-limits');
    await createConnection(h.db, h.deps.secretBox, { workspaceId, provider: 'github', config: { repo: REPO }, token: 'ghp_secret_token' });
    const deps: ProxyDeps = {
      db: h.db,
      secretBox: h.deps.secretBox,
      connectorFor: (c) => createGitHubConnector({ repo: c.config.repo!, token: c.token, baseUrl: base, retries: 0, retryBaseMs: 1 }),
      ...limits,
    };
    return (action: string, params: Record<string, unknown>) => callProxyAction(deps, workspaceId, { action, params });
  }

  it('a provider that never answers is cut at the deadline, and the abort closes the provider connection', async () => {
    mode = 'hang';
    const call = await setup({ timeoutMs: 400 });
    const started = Date.now();
    const out = await call('github.get-pull-request', { owner: 'acme', repo: 'widgets', pull_number: 7 });
    expect(out.kind).toBe('provider-timeout');
    expect(Date.now() - started).toBeLessThan(10_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.at(-1)).toMatchObject({ url: '/repos/acme/widgets/pulls/7', closedEarly: true });
  });

  it('a response over the cap is refused, with or without content-length, and never returned', async () => {
    for (const m of ['huge', 'huge-chunked'] as const) {
      mode = m;
      const call = await setup({ maxResponseBytes: 1_000_000 });
      const out = await call('github.get-pull-request', { owner: 'acme', repo: 'widgets', pull_number: 8 });
      expect(out.kind, m).toBe('provider-too-large');
    }
  });

  it('search-issues stays inside the repository: repo:, org:, user: and visibility qualifiers are refused', async () => {
    mode = 'ok';
    const call = await setup();
    for (const q of ['secret repo:victim-org/private-repo', 'token org:victim-org', 'x user:someone', 'x is:private', 'x (repo:a/b OR crash)', 'x -repo:acme/widgets', 'x REPO:victim/x']) {
      const out = await call('github.search-issues', { owner: 'acme', repo: 'widgets', q });
      expect(out.kind, q).toBe('invalid-params');
      if (out.kind === 'invalid-params') expect(out.error.issues[0]!.path).toEqual(['q']);
    }
    const before = seen.length;
    const ok = await call('github.search-issues', { owner: 'acme', repo: 'widgets', q: 'crash is:issue is:open' });
    expect(ok.kind).toBe('ok');
    expect(seen.length).toBe(before + 1);
    expect(decodeURIComponent(seen.at(-1)!.url.replace(/\+/g, ' '))).toContain('q=crash is:issue is:open repo:acme/widgets');
  });

  it('every parameter is validated per action: a ref cannot walk the path, strings are storable and bounded', async () => {
    mode = 'ok';
    const call = await setup();
    const before = seen.length;
    for (const ref of ['..', '../..', 'main/../../orgs', 'a//b', './x', 'main\u0000']) {
      const out = await call('github.get-commit', { owner: 'acme', repo: 'widgets', ref });
      expect(out.kind, ref).toBe('invalid-params');
    }
    for (const params of [{ owner: '../x', repo: 'widgets', pull_number: 1 }, { owner: 'acme', repo: '..', pull_number: 1 }, { owner: 'acme', repo: 'widgets', pull_number: '1' }]) {
      expect((await call('github.get-pull-request', params)).kind, JSON.stringify(params)).toBe('invalid-params');
    }
    expect((await call('github.list-commits', { owner: 'acme', repo: 'widgets', path: 'x'.repeat(5_000) })).kind).toBe('invalid-params');
    expect(seen.length).toBe(before);
    expect((await call('github.get-commit', { owner: 'acme', repo: 'widgets', ref: 'release/3.x' })).kind).toBe('ok');
  });
});
