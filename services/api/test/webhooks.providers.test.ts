/**
 * Webhooks per provider (GitHub, Linear, Vercel), through the whole api over HTTP with its jobs running:
 * a signed but malformed delivery answers 400 with the error body (never a 5xx) and indexes nothing; a
 * redelivery is one item; an older update delivered after a newer one leaves the newer version; a
 * webhook racing a backfill of the same object ends as one up-to-date item.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs, type Jobs } from '@engram/runtime';
import { createConnection, getConnection } from '@engram/stores';
import { prettierSubset, hasPrettierCorpus, signWebhook, startFakeGitHub } from '../../../test/fakes/github/index.js';
import { linearFixture, startFakeLinear } from '../../../test/fakes/linear/index.js';
import { startFakeVercel, vercelFixture } from '../../../test/fakes/vercel/index.js';
import { ADMIN_TOKEN, startFullServer, type FullServer } from './support/fullServer.js';

const SECRET = 'whsec_provider_suite_secret';
type Provider = 'github' | 'linear' | 'vercel';

interface Sent { status: number; body: Record<string, unknown> }

describe('webhooks per provider: malformed, redelivered, out of order, racing a backfill', () => {
  let server: FullServer;
  let jobs: Jobs;

  beforeAll(async () => {
    server = await startFullServer({ SYNC_INTERVAL_MS: '3600000' });
    jobs = await startJobs(server.runtime);
  });
  afterAll(async () => {
    await jobs?.stop();
    await server?.close();
  });

  async function send(provider: Provider, payload: unknown, options: { connectionId?: string; event?: string; deliveryId?: string; raw?: string } = {}): Promise<Sent> {
    const raw = options.raw ?? JSON.stringify(payload);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (provider === 'github') {
      Object.assign(headers, { 'x-github-event': options.event ?? 'pull_request', 'x-github-delivery': options.deliveryId ?? randomUUID(), 'x-hub-signature-256': signWebhook(SECRET, raw) });
    } else if (provider === 'linear') {
      Object.assign(headers, { 'linear-event': options.event ?? 'Issue', 'linear-delivery': options.deliveryId ?? randomUUID(), 'linear-signature': createHmac('sha256', SECRET).update(raw).digest('hex') });
    } else {
      headers['x-vercel-signature'] = createHmac('sha1', SECRET).update(raw).digest('hex');
    }
    const query = options.connectionId ? `?connection=${options.connectionId}` : '';
    const res = await fetch(`${server.base}/webhooks/${provider}${query}`, { method: 'POST', headers, body: raw });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function connect(provider: Provider, config: Record<string, string>, token = 'tok_provider_suite'): Promise<{ workspaceId: string; connectionId: string }> {
    const { workspaceId } = await server.tenant();
    const c = await createConnection(server.runtime.db, server.runtime.secretBox, { workspaceId, provider, config, token, webhookSecret: SECRET });
    return { workspaceId, connectionId: c.id };
  }

  const settled = () => server.runtime.queue.idle();
  async function items(workspaceId: string): Promise<{ external_id: string; title: string; state: string | null }[]> {
    const res = await server.runtime.db.query<{ external_id: string; title: string; state: string | null }>('SELECT external_id, title, state FROM items WHERE workspace_id = $1 ORDER BY external_id', [workspaceId]);
    return res.rows;
  }

  function expectRejected(answer: Sent, field: string) {
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', error: 'VALIDATION_ERROR', status: 400 });
    expect((answer.body.data as { fields: string[] }).fields).toContain(field);
  }

  // --- payloads -------------------------------------------------------------------------------------
  const ghRepo = 'acme/webhooks';
  const pull = (n: number, title: string, updatedAt: string) => ({
    number: n, html_url: `https://github.com/${ghRepo}/pull/${n}`, title, body: 'Fixes the printer', user: { login: 'ana' }, state: 'open',
    created_at: '2026-11-01T10:00:00Z', updated_at: updatedAt, head: { ref: 'fix', sha: 'a'.repeat(40) }, base: { ref: 'main' },
  });
  const linearIssue = (id: string, title: string, updatedAt: string, extra: Record<string, unknown> = {}) => ({
    action: 'update', type: 'Issue', createdAt: updatedAt, url: `https://linear.app/acme/issue/ENG-${id}/x`, webhookTimestamp: Date.now(), webhookId: 'wh-suite',
    data: {
      id: `issue-${id}`, identifier: `ENG-${id}`, number: Number(id), title, description: 'Fails on macOS only.', url: `https://linear.app/acme/issue/ENG-${id}/x`, priority: 2,
      createdAt: '2026-07-01T08:00:00.000Z', updatedAt, state: { id: 'state-progress', name: 'In Progress', type: 'started' },
      team: { id: 'team-eng', key: 'ENG', name: 'Engineering' }, labels: [], ...extra,
    },
  });
  const vercelEvent = (type: string, createdAt: number, deployment: Record<string, unknown>, projectId = 'prj_suite') => ({
    id: `evt_${randomUUID()}`, type, createdAt, payload: { deployment, target: 'production', project: { id: projectId }, links: { deployment: 'https://vercel.com/acme/site/x' } },
  });
  const deployment = (uid: string) => ({ id: uid, url: `${uid}.vercel.app`, name: 'site', meta: { githubCommitSha: 'b'.repeat(40), githubCommitMessage: 'Fix the build', githubCommitRef: 'main' } });

  // --- malformed --------------------------------------------------------------------------------------
  it('GitHub: signed but malformed deliveries answer 400 with the error body and index nothing', async () => {
    const { workspaceId } = await connect('github', { repo: ghRepo });
    const repository = { full_name: ghRepo };
    expectRejected(await send('github', { action: 'opened', repository, pull_request: { ...pull(1, 'x', '2026-11-01T11:00:00Z'), number: 'one' } }), 'pull_request.number');
    expectRejected(await send('github', { ref: 'refs/heads/main', repository, commits: [null] }, { event: 'push' }), 'commits.0');
    expectRejected(await send('github', { action: 'opened', repository, pull_request: pull(2, 'nul\u0000title', '2026-11-01T11:00:00Z') }), 'pull_request.title');
    const notJson = await send('github', null, { raw: '{"action": "opened", "pull_request": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    await settled();
    expect(await items(workspaceId)).toEqual([]);
  });

  it('Linear: a signed issue delivery without an id or with a title of the wrong type answers 400 naming the field', async () => {
    const { workspaceId, connectionId } = await connect('linear', { teamKey: 'ENG' });
    const noId = linearIssue('1', 'Flaky watcher', new Date().toISOString());
    delete (noId.data as Record<string, unknown>).id;
    expectRejected(await send('linear', noId, { connectionId }), 'data.id');
    expectRejected(await send('linear', linearIssue('2', 42 as unknown as string, new Date().toISOString()), { connectionId }), 'data.title');
    expectRejected(await send('linear', linearIssue('3', 'x', new Date().toISOString(), { state: 'started' }), { connectionId }), 'data.state');
    // A kind Linear sends but Engram does not index is acknowledged, not refused.
    const other = await send('linear', { action: 'create', type: 'Reaction', data: { id: 'r1', emoji: '+1' }, webhookTimestamp: Date.now() }, { connectionId, event: 'Reaction' });
    expect(other).toMatchObject({ status: 200, body: { ok: true, events: 0 } });
    await settled();
    expect(await items(workspaceId)).toEqual([]);
  });

  it('Vercel: a signed deployment delivery without a deployment id or url answers 400 naming the field', async () => {
    const { workspaceId, connectionId } = await connect('vercel', { projectId: 'prj_suite' });
    const noId = vercelEvent('deployment.succeeded', Date.now(), { url: 'x.vercel.app', name: 'site' });
    expectRejected(await send('vercel', noId, { connectionId }), 'payload.deployment.id');
    expectRejected(await send('vercel', vercelEvent('deployment.error', Date.now(), { id: 'dpl_1', url: 7, name: 'site' }), { connectionId }), 'payload.deployment.url');
    expectRejected(await send('vercel', { ...vercelEvent('deployment.created', Date.now(), deployment('dpl_2')), createdAt: 'yesterday' }, { connectionId }), 'createdAt');
    const other = await send('vercel', { id: 'evt_other', type: 'project.created', createdAt: Date.now(), payload: { project: { id: 'p' } } }, { connectionId });
    expect(other).toMatchObject({ status: 200, body: { ok: true, events: 0 } });
    await settled();
    expect(await items(workspaceId)).toEqual([]);
  });

  // --- redelivery and order ------------------------------------------------------------------------------
  it('GitHub: a redelivery is one item, and an older update after a newer one leaves the newer title', async () => {
    const { workspaceId } = await connect('github', { repo: 'acme/ordering' });
    const repository = { full_name: 'acme/ordering' };
    const newer = { action: 'edited', repository, pull_request: { ...pull(5, 'The newer title', '2026-11-02T12:00:00Z'), html_url: 'https://github.com/acme/ordering/pull/5' } };
    const older = { action: 'edited', repository, pull_request: { ...pull(5, 'The older title', '2026-11-02T09:00:00Z'), html_url: 'https://github.com/acme/ordering/pull/5' } };
    const first = await send('github', newer, { deliveryId: 'gh-order-1' });
    const again = await send('github', newer, { deliveryId: 'gh-order-1' });
    expect([first.body.duplicate, again.body.duplicate]).toEqual([false, true]);
    await settled();
    expect((await send('github', older, { deliveryId: 'gh-order-2' })).status).toBe(200);
    await settled();
    expect(await items(workspaceId)).toEqual([{ external_id: 'github:acme/ordering:pull_request:5', title: 'The newer title', state: 'open' }]);
  });

  it('Linear: a redelivery is one item, and an older update after a newer one leaves the newer title', async () => {
    const { workspaceId, connectionId } = await connect('linear', { teamKey: 'ENG' });
    const newer = linearIssue('41', 'Flaky watcher test on macOS', '2026-07-03T10:00:00.000Z');
    expect((await send('linear', newer, { connectionId, deliveryId: 'lin-order-1' })).body).toMatchObject({ duplicate: false, events: 1 });
    expect((await send('linear', newer, { connectionId, deliveryId: 'lin-order-1' })).body).toMatchObject({ duplicate: true });
    await settled();
    expect((await send('linear', linearIssue('41', 'Watcher test', '2026-07-02T10:00:00.000Z'), { connectionId, deliveryId: 'lin-order-2' })).status).toBe(200);
    await settled();
    expect((await items(workspaceId)).map((i) => [i.external_id, i.title])).toEqual([['linear:issue:issue-41', 'Flaky watcher test on macOS']]);
  });

  it('Vercel: a redelivery is one item, and a late `deployment.created` after `deployment.succeeded` leaves it READY', async () => {
    const { workspaceId, connectionId } = await connect('vercel', { projectId: 'prj_suite' });
    const succeeded = vercelEvent('deployment.succeeded', Date.parse('2026-11-03T10:05:00Z'), deployment('dpl_order'));
    const created = vercelEvent('deployment.created', Date.parse('2026-11-03T10:00:00Z'), deployment('dpl_order'));
    expect((await send('vercel', succeeded, { connectionId })).body).toMatchObject({ duplicate: false, events: 1 });
    expect((await send('vercel', succeeded, { connectionId })).body).toMatchObject({ duplicate: true });
    await settled();
    expect((await send('vercel', created, { connectionId })).status).toBe(200);
    await settled();
    const rows = await items(workspaceId);
    expect(rows.map((r) => [r.external_id, r.state])).toEqual([['vercel:deployment:dpl_order', 'READY']]);
  });

  // --- racing a backfill --------------------------------------------------------------------------------
  async function backfill(connectionId: string) {
    const res = await fetch(`${server.base}/admin/connections/${connectionId}/backfill`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(202);
  }
  async function backfillDone(connectionId: string) {
    let c: { streams: { mode: string; state: string }[] } = { streams: [] };
    for (let i = 0; i < 300; i++) {
      c = await fetch(`${server.base}/admin/connections/${connectionId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.json() as Promise<{ streams: { mode: string; state: string }[] }>);
      if (c.streams.length > 0 && c.streams.filter((s) => s.mode === 'backfill').every((s) => s.state === 'done')) return settled();
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`backfill did not finish: ${JSON.stringify(c.streams)}`);
  }

  it.skipIf(!hasPrettierCorpus())('GitHub: a webhook racing a backfill of the same pull request ends as one item with the webhook’s newer title', async () => {
    const subset = prettierSubset({ pulls: 12, commits: 4 });
    const gh = await startFakeGitHub({ repo: 'prettier/prettier', token: 'tok_provider_suite', items: [...subset.pulls, ...subset.commits] });
    try {
      const { workspaceId, connectionId } = await connect('github', { repo: 'prettier/prettier', baseUrl: gh.url });
      const target = subset.pulls[5]!;
      const newer = { action: 'edited', repository: { full_name: 'prettier/prettier' }, pull_request: { ...target, title: 'Retitled while the backfill ran', updated_at: new Date().toISOString() } };
      await backfill(connectionId);
      expect((await send('github', newer)).status).toBe(200);
      await backfillDone(connectionId);
      const rows = await items(workspaceId);
      expect(rows).toHaveLength(16);
      expect(rows.filter((r) => r.external_id === `github:prettier/prettier:pull_request:${target.number}`).map((r) => r.title)).toEqual(['Retitled while the backfill ran']);
    } finally {
      await gh.close();
    }
  }, 240_000);

  it('Linear: an issue webhook racing a backfill of the same issue ends as one item with the webhook’s newer title', async () => {
    const data = linearFixture();
    const linear = await startFakeLinear({ apiKey: 'tok_provider_suite', data });
    try {
      const { workspaceId, connectionId } = await connect('linear', { teamKey: 'ENG', apiUrl: linear.url });
      const target = data.issues[16]!;
      const now = new Date().toISOString();
      const webhook = linearIssue(String(target.number), 'Retitled while the backfill ran', now);
      const newer = { ...webhook, data: { ...webhook.data, id: target.id, createdAt: target.createdAt } };
      await backfill(connectionId);
      expect((await send('linear', newer, { connectionId })).status).toBe(200);
      await backfillDone(connectionId);
      const rows = await items(workspaceId);
      expect(rows.filter((r) => r.external_id.startsWith('linear:issue:'))).toHaveLength(data.issues.length);
      expect(new Set(rows.map((r) => r.external_id)).size).toBe(rows.length);
      expect(rows.filter((r) => r.external_id === `linear:issue:${target.id}`).map((r) => r.title)).toEqual(['Retitled while the backfill ran']);
    } finally {
      await linear.close();
    }
  }, 240_000);

  it('Vercel: a `deployment.error` webhook racing a backfill that still sees the deployment building ends as one ERROR item', async () => {
    const fixture = vercelFixture();
    const building = fixture.deployments.map((d, i) => (i === 2 ? { ...d, state: 'BUILDING' as const, ready: null } : d));
    const vercel = await startFakeVercel({ token: 'tok_provider_suite', deployments: building, events: fixture.events });
    try {
      const projectId = building[0]!.projectId;
      const { workspaceId, connectionId } = await connect('vercel', { projectId, baseUrl: vercel.url });
      expect((await getConnection(server.runtime.db, connectionId))?.provider).toBe('vercel');
      const target = building[2]!;
      const failed = vercelEvent('deployment.error', Date.now(), { id: target.uid, url: target.url, name: target.name, meta: target.meta }, projectId);
      await backfill(connectionId);
      expect((await send('vercel', failed, { connectionId })).status).toBe(200);
      await backfillDone(connectionId);
      const rows = (await items(workspaceId)).filter((r) => r.external_id === `vercel:deployment:${target.uid}`);
      expect(rows.map((r) => r.state)).toEqual(['ERROR']);
    } finally {
      await vercel.close();
    }
  }, 240_000);
});
