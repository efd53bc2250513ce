/**
 * Property-based fuzzing of everything a client can reach (issue 18): the six operations on both
 * prefixes, the webhooks and the admin API, with generated bodies and headers (wrong types, NUL and lone
 * surrogates, huge strings and arrays, deep nesting, `__proto__` keys, bodies over the limit, broken
 * JSON). Every answer must be a documented status with the documented error body, never a 5xx or a stack
 * trace, and the server must be healthy afterwards.
 *
 * `FUZZ_RUNS` sets the generated requests per property (default 250: well under a minute in CI);
 * `FUZZ_SEED` replays a run.
 */
import { createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '@engram/contracts';
import { createConnection } from '@engram/stores';
import { ADMIN_TOKEN, startFullServer, type FullServer } from './support/fullServer.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const params = { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true };
let sent = 0;

/** Statuses the API documents; anything else (and any 5xx) fails the property. */
const DOCUMENTED = new Set([200, 201, 202, 400, 401, 403, 404, 413, 429]);

/** Strings that hurt: NUL, lone surrogates, any code unit, long ones, qualifiers and path tricks. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('a\u0000b', '\ud800', 'x\udc00y', '..', '../../etc', 'repo:victim/x', '__proto__', 'constructor', '', ' ', 'obs_', 'doc_x', '%00'),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);
const leaf = fc.oneof(nastyString, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const nastyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 5 }), fc.dictionary(nastyString, tie('value'), { maxKeys: 4 })),
})).value;
const bigArray = fc.integer({ min: 100, max: 70_000 }).map((n) => Array.from({ length: n }, (_, i) => `v${i}`));

const FIELDS = ['query', 'limit', 'offset', 'mode', 'filters', 'includeContext', 'includeHighlights', 'ids', 'id', 'url', 'threshold', 'sameSourceOnly', 'excludeIds', 'depth', 'types', 'action', 'params', 'connectionId', '__proto__'];
const FILTER_FIELDS = ['sourceTypes', 'observationTypes', 'actorNames', 'dateRange', '__proto__'];
const filters = fc.dictionary(fc.constantFrom(...FILTER_FIELDS), fc.oneof(nastyValue, bigArray, fc.array(nastyString, { maxLength: 5 })), { maxKeys: 4 });
/** Bodies near the real shapes (so validation deep inside is reached), and arbitrary JSON. */
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(nastyValue, filters, bigArray), { maxKeys: 6 }).map((b) => JSON.stringify(b)),
  fc.record({ query: nastyString, filters }).map((b) => JSON.stringify(b)),
  fc.record({ ids: fc.oneof(fc.array(nastyString, { maxLength: 60 }), bigArray) }).map((b) => JSON.stringify(b)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 1, max: 5_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  fc.constantFrom('{"__proto__":{"polluted":true},"query":"x"}', '{"query":"x","filters":{"__proto__":{"actorNames":["a"]}}}', '{', 'null', '[]', '"str"', '{"query":"\\u0000"}', '{"query":"\\ud800"}'),
  fc.constant(`{"query":"${'y'.repeat(1_200_000)}"}`),
);
const path = fc.constantFrom('/search', '/contents', '/findsimilar', '/related', '/proxy/search', '/proxy/call');
const prefix = fc.constantFrom('/v1', '/api/v1');
const contentType = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', '');

async function send(url: string, init: { method?: string; headers: Record<string, string>; body?: string | Buffer }) {
  sent++;
  const res = await fetch(url, { method: init.method ?? 'POST', headers: init.headers, ...(init.body !== undefined ? { body: init.body } : {}) });
  const text = await res.text();
  return { status: res.status, text, retryAfter: res.headers.get('retry-after') };
}

function expectDocumented(r: { status: number; text: string; retryAfter: string | null }, what: string): void {
  expect(r.status, `${what} -> ${r.status} ${r.text.slice(0, 300)}`).toBeLessThan(500);
  expect(DOCUMENTED.has(r.status), `${what} -> undocumented ${r.status}`).toBe(true);
  expect(r.text, what).not.toMatch(/\n\s+at [\w.<>]+ \(|node:internal|\.ts:\d+:\d+/);
  if (r.status >= 400) {
    const parsed = ErrorBody.safeParse(JSON.parse(r.text));
    expect(parsed.success, `${what} -> error body ${r.text.slice(0, 300)}`).toBe(true);
    if (r.status === 429) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
  }
}

describe(`fuzz (${RUNS} runs per property${SEED !== undefined ? `, seed ${SEED}` : ''})`, () => {
  let s: FullServer;
  let t: { workspaceId: string; key: string };
  const secret = 'whsec_fuzz_secret';

  beforeAll(async () => {
    s = await startFullServer({ RATE_LIMIT_IP_PER_SECOND: '100000' });
    t = await s.tenant();
    await createConnection(s.runtime.db, s.runtime.secretBox, { workspaceId: t.workspaceId, provider: 'github', config: { repo: 'acme/widgets' }, token: 'ghp_fuzz', webhookSecret: secret });
    await createConnection(s.runtime.db, s.runtime.secretBox, { workspaceId: t.workspaceId, provider: 'linear', config: { teamKey: 'ENG' }, token: 'lin_fuzz', webhookSecret: secret });
  }, 120_000);
  afterAll(async () => {
    console.log(`fuzz: ${sent} requests sent`);
    await s?.close();
  });

  it('the six operations on both prefixes: generated bodies and headers are answered with a documented 4xx, never a 5xx', async () => {
    const auth = fc.constantFrom<'valid' | 'none' | 'garbage' | 'other-workspace'>('valid', 'valid', 'valid', 'none', 'garbage', 'other-workspace');
    await fc.assert(
      fc.asyncProperty(prefix, path, body, auth, contentType, async (pre, p, b, a, ct) => {
        const headers: Record<string, string> = {};
        if (ct) headers['content-type'] = ct;
        if (a === 'valid') Object.assign(headers, { authorization: `Bearer ${t.key}`, 'x-workspace-id': t.workspaceId });
        if (a === 'garbage') Object.assign(headers, { authorization: 'Bearer egk_\u00ff\u00fe', 'x-workspace-id': 'ws_\u00e9' });
        if (a === 'other-workspace') Object.assign(headers, { authorization: `Bearer ${t.key}`, 'x-workspace-id': 'ws_someone_else' });
        expectDocumented(await send(`${s.base}${pre}${p}`, { headers, body: b }), `${pre}${p} ${a} ${b.slice(0, 120)}`);
      }),
      params,
    );
  }, 600_000);

  it('webhooks: generated deliveries, signed and not, are answered 200/400/401/413, never a 5xx', async () => {
    const provider = fc.constantFrom('github', 'linear', 'vercel');
    const event = fc.constantFrom('push', 'pull_request', 'issues', 'issue_comment', 'discussion', 'ping', 'Issue', '\u00ff');
    const signed = fc.constantFrom('valid', 'junk-suffix', 'none', 'garbage');
    await fc.assert(
      fc.asyncProperty(provider, event, body, signed, fc.boolean(), async (prov, ev, b, sig, withTimestamp) => {
        let raw = b;
        if (prov === 'linear' && withTimestamp && raw.startsWith('{') && raw.length < 500_000) {
          try {
            raw = JSON.stringify({ ...(JSON.parse(raw) as object), webhookTimestamp: Date.now() });
          } catch {
            // broken JSON stays broken
          }
        }
        const hex = createHmac(prov === 'vercel' ? 'sha1' : 'sha256', secret).update(raw).digest('hex');
        const value = sig === 'valid' ? hex : sig === 'junk-suffix' ? `${hex},junk` : sig === 'garbage' ? 'zz' : undefined;
        const headers: Record<string, string> = { 'content-type': 'application/json', 'x-github-event': ev, 'x-github-delivery': randomUUID() };
        if (value !== undefined) {
          if (prov === 'github') headers['x-hub-signature-256'] = `sha256=${value}`;
          else if (prov === 'linear') headers['linear-signature'] = value;
          else headers['x-vercel-signature'] = value;
        }
        expectDocumented(await send(`${s.base}/webhooks/${prov}`, { headers, body: raw }), `webhook ${prov} ${ev} ${sig} ${raw.slice(0, 120)}`);
      }),
      params,
    );
  }, 600_000);

  it('the admin API: generated bodies to every endpoint are answered with a documented 4xx, never a 5xx', async () => {
    const endpoint = fc.constantFrom(
      ['POST', '/admin/workspaces'], ['POST', '/admin/imports'], ['POST', '/admin/connections'], ['POST', '/admin/workspaces/ws_none/keys'],
      ['POST', '/admin/connections/con_none/backfill'], ['DELETE', '/admin/keys/%00'], ['POST', '/admin/keys/key_x/rotate'], ['GET', '/admin/imports/imp_%ff'],
      ['DELETE', '/admin/connections/con_none'], ['GET', '/admin/keys?workspaceId=%00'],
    );
    const adminBody = fc.oneof(
      body,
      fc.record({ workspaceId: fc.oneof(nastyString, fc.constant('WS')), provider: fc.constantFrom('github', 'linear', 'vercel', 'x'), repo: nastyString, content: nastyString }).map((b) => JSON.stringify(b)),
      fc.record({ name: nastyValue }).map((b) => JSON.stringify(b)),
    );
    await fc.assert(
      fc.asyncProperty(endpoint, adminBody, fc.boolean(), async ([method, p], b, authed) => {
        const wsBody = b.replace('"WS"', JSON.stringify(t.workspaceId));
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(authed ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {}) };
        const r = await send(`${s.base}${p}`, { method: method!, headers, ...(method === 'GET' ? {} : { body: wsBody }) });
        expectDocumented(r, `${method} ${p} ${wsBody.slice(0, 120)}`);
      }),
      { ...params, numRuns: Math.max(20, Math.round(RUNS / 2)) },
    );
  }, 600_000);

  it('the server is healthy afterwards and still answers a valid search', async () => {
    expect((await fetch(`${s.base}/healthz`)).status).toBe(200);
    const r = await send(`${s.base}/v1/search`, { headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}`, 'x-workspace-id': t.workspaceId }, body: JSON.stringify({ query: 'crash', mode: 'fast' }) });
    expect(r.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
