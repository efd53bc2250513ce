/**
 * Bad input at the connector boundary (issue 18): signed but malformed webhook deliveries are a 400
 * naming the field and are recorded, never a thrown error (a 5xx the provider would retry for days);
 * signatures are exact; Linear deliveries outside the replay window are refused; an import stages each
 * entry on its own.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection, getImportProgress } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { signWebhook } from '../../../test/fakes/github/index.js';
import { ExportFormatError, importGitHubExport, receiveWebhook } from '../src/index.js';
import { githubConnection, openHarness, randomSha, REPO, stagedCount, stagedExternalIds, type Harness } from './harness.js';

const SECRET = 'whsec_engram_hardening';
const repository = { full_name: REPO };

const pull = (n: number, extra: Record<string, unknown> = {}) => ({
  number: n, html_url: `https://github.com/${REPO}/pull/${n}`, title: `Fix the printer ${n}`, body: 'Fixes #1', user: { login: 'fisker' },
  state: 'open', created_at: '2026-11-01T10:00:00Z', updated_at: '2026-11-01T11:00:00Z', head: { ref: 'fix', sha: randomSha() }, base: { ref: 'main' },
  ...extra,
});
const pushCommit = (message: string) => ({
  id: randomSha(), message, timestamp: '2026-11-01T10:00:00Z', url: `https://github.com/${REPO}/commit/x`,
  author: { name: 'Ana', email: 'ana@example.com', username: 'ana' }, committer: { name: 'Ana', email: 'ana@example.com' }, added: ['src/a.js'], removed: [], modified: [],
});
const commitObject = (message: string) => {
  const sha = randomSha();
  return {
    type: 'commit', sha, html_url: `https://github.com/${REPO}/commit/${sha}`,
    commit: { message, author: { name: 'Ana', email: 'ana@example.com', date: '2026-11-01T10:00:00Z' }, committer: { name: 'Ana', email: 'ana@example.com', date: '2026-11-01T10:00:00Z' } },
    author: { login: 'ana' }, committer: { login: 'ana' },
  };
};

function github(payload: unknown, event: string, options: { signature?: string; raw?: Buffer } = {}) {
  const rawBody = options.raw ?? Buffer.from(JSON.stringify(payload));
  return {
    provider: 'github' as const,
    rawBody,
    headers: { 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': options.signature ?? signWebhook(SECRET, rawBody) },
  };
}

const deliveries = async (h: Harness, connectionId: string) =>
  (await h.db.query<{ event: string }>('SELECT event FROM webhook_deliveries WHERE connection_id = $1 ORDER BY received_at', [connectionId])).rows.map((r) => r.event);

describe('hardening: webhooks and imports', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('signed but malformed GitHub deliveries answer 400 naming the field, are recorded, and stage nothing', async () => {
    const { workspaceId, connectionId } = await githubConnection(h, SECRET);
    const cases: { event: string; payload: unknown; field: string }[] = [
      { event: 'push', payload: { ref: 'refs/heads/main', repository, commits: 'notarray' }, field: 'commits' },
      { event: 'push', payload: { ref: 'refs/heads/main', repository, commits: {} }, field: 'commits' },
      { event: 'push', payload: { ref: 'refs/heads/main', repository, commits: [null] }, field: 'commits.0' },
      { event: 'push', payload: { ref: 'refs/heads/main', repository, commits: [{ ...pushCommit('x'), id: undefined }] }, field: 'commits.0.id' },
      { event: 'pull_request', payload: { action: 'opened', repository, pull_request: {} }, field: 'pull_request.number' },
      { event: 'pull_request', payload: { action: 'opened', repository, pull_request: pull(1, { title: 42 }) }, field: 'pull_request.title' },
      { event: 'issues', payload: { action: 'opened', repository, issue: [1, 2] }, field: 'issue' },
      { event: 'pull_request', payload: { action: 'opened', repository: { full_name: 12 }, pull_request: pull(2) }, field: 'repository.full_name' },
      { event: 'pull_request', payload: { action: 'opened', repository, pull_request: pull(3, { title: 'bad\u0000title' }) }, field: 'pull_request.title' },
      { event: 'push', payload: { ref: 'refs/heads/main', repository, commits: [pushCommit('lone \ud800 surrogate')] }, field: 'commits.0.message' },
    ];
    for (const c of cases) {
      const answer = await receiveWebhook(h.deps, github(c.payload, c.event));
      expect(answer.status, JSON.stringify(c.payload).slice(0, 120)).toBe(400);
      expect(answer.body).toMatchObject({ ok: false, error: 'VALIDATION_ERROR' });
      const data = answer.body.ok ? null : (answer.body.data as { fields: string[] });
      expect(data?.fields, c.field).toContain(c.field);
    }
    expect(await stagedCount(h.db, workspaceId)).toBe(0);
    const recorded = await deliveries(h, connectionId);
    expect(recorded).toHaveLength(cases.length);
    expect(recorded.every((e) => e.startsWith('rejected:'))).toBe(true);

    // The connection still takes good deliveries.
    const ok = await receiveWebhook(h.deps, github({ action: 'opened', repository, pull_request: pull(4) }, 'pull_request'));
    expect(ok).toMatchObject({ status: 200, body: { ok: true, events: 1 } });
  });

  it('a signature with anything after the 64 hex digits is refused', async () => {
    const { workspaceId } = await githubConnection(h, SECRET);
    const d = github({ action: 'opened', repository, pull_request: pull(5) }, 'pull_request');
    const valid = d.headers['x-hub-signature-256'];
    for (const signature of [`${valid},junk`, `${valid}00`, `${valid} `, valid.toUpperCase().replace('SHA256=', 'sha256=') + 'z']) {
      expect((await receiveWebhook(h.deps, { ...d, headers: { ...d.headers, 'x-hub-signature-256': signature } })).status).toBe(401);
    }
    expect(await stagedCount(h.db, workspaceId)).toBe(0);
    expect((await receiveWebhook(h.deps, d)).status).toBe(200);
  });

  it('an unsigned body is refused before it is parsed: a non-JSON unsigned body is 401, not 400', async () => {
    await githubConnection(h, SECRET);
    const raw = Buffer.from('{"not json');
    expect((await receiveWebhook(h.deps, github(null, 'push', { raw, signature: 'sha256=' + '0'.repeat(64) }))).status).toBe(401);
    expect((await receiveWebhook(h.deps, github(null, 'push', { raw }))).status).toBe(400);
  });

  it('Linear: a delivery whose signed webhookTimestamp is outside the replay window is 401 and stages nothing', async () => {
    const workspaceId = await testWorkspace(h.db, 'linear-replay');
    const conn = await createConnection(h.db, h.deps.secretBox, { workspaceId, provider: 'linear', config: { teamKey: 'ENG' }, token: 'lin_api_x', webhookSecret: SECRET });
    const at = new Date().toISOString();
    const payload = (webhookTimestamp: number | undefined) => ({
      action: 'update', type: 'Issue', createdAt: at, url: 'https://linear.app/acme/issue/ENG-7/x', webhookId: 'wh', webhookTimestamp,
      data: {
        id: 'issue-7', identifier: 'ENG-7', number: 7, title: 'Replayed', description: '', url: 'https://linear.app/acme/issue/ENG-7/x', priority: 2,
        createdAt: at, updatedAt: at, state: { id: 's', name: 'Todo', type: 'unstarted' }, team: { id: 't', key: 'ENG', name: 'Engineering' }, labels: [],
      },
    });
    const send = (p: unknown) => {
      const rawBody = Buffer.from(JSON.stringify(p));
      return receiveWebhook(h.deps, {
        provider: 'linear', connectionId: conn.id, rawBody,
        headers: { 'linear-event': 'Issue', 'linear-delivery': randomUUID(), 'linear-signature': createHmac('sha256', SECRET).update(rawBody).digest('hex') },
      });
    };
    expect((await send(payload(Date.now() - 10 * 60_000))).status).toBe(401);
    expect((await send(payload(undefined))).status).toBe(401);
    expect(await stagedCount(h.db, workspaceId)).toBe(0);
    expect(await send(payload(Date.now()))).toMatchObject({ status: 200, body: { ok: true, events: 1 } });
  });

  it('an import stages each entry on its own: a NUL in one commit message fails that entry only', async () => {
    const workspaceId = (await githubConnection(h)).workspaceId;
    const good = [commitObject('Fix the watcher'), commitObject('Add a test'), commitObject('Bump deps')];
    const bad = commitObject('Broken \u0000 message');
    const lone = commitObject('Lone \udc00 surrogate');
    const content = [good[0], bad, good[1], lone, good[2]].map((o) => JSON.stringify(o)).join('\n');
    const result = await importGitHubExport(h.deps, { workspaceId, repo: REPO, content });
    expect(result).toMatchObject({ received: 5, staged: 3, inserted: 3, invalid: 2 });
    expect(result.errors.map((e) => e.index)).toEqual([1, 3]);
    expect(result.errors[0]!.message).toMatch(/NUL/);
    expect([...(await stagedExternalIds(h.db, workspaceId)).keys()].sort()).toEqual(good.map((g) => `github:${REPO}:commit:${g.sha}`).sort());
    expect(await getImportProgress(h.db, result.importId)).toMatchObject({ events: 3, received: 5, invalid: 2 });
  });

  it('a file with no JSON entry at all is a format error, not "1 invalid"', async () => {
    const workspaceId = (await githubConnection(h)).workspaceId;
    await expect(importGitHubExport(h.deps, { workspaceId, repo: REPO, content: 'this is not json\nnor this\n' })).rejects.toBeInstanceOf(ExportFormatError);
    expect(await stagedCount(h.db, workspaceId)).toBe(0);
  });
});
