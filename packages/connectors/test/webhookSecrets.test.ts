/**
 * What an unsigned webhook costs (issue 18): secrets are decrypted once per connection and kept until the
 * connection's secret changes or the connection goes, a delivery without a signature is refused before
 * anything is read, and at most `maxWebhookSecrets` distinct secrets are tried for a delivery that names
 * no connection.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookSecretCache, deleteConnection, type SecretBox } from '@engram/stores';
import { signWebhook } from '../../../test/fakes/github/index.js';
import { receiveWebhook, type SyncDeps } from '../src/index.js';
import { githubConnection, openHarness, randomSha, REPO, type Harness } from './harness.js';

const pullRequest = (n: number) => ({
  action: 'opened',
  repository: { full_name: REPO },
  pull_request: {
    number: n, html_url: `https://github.com/${REPO}/pull/${n}`, title: `Fix the printer ${n}`, body: 'Fixes #1', user: { login: 'fisker' },
    state: 'open', created_at: '2026-11-01T10:00:00Z', updated_at: '2026-11-01T11:00:00Z', head: { ref: 'fix', sha: randomSha() }, base: { ref: 'main' },
  },
});

function delivery(secret: string | null, n = 1, connectionId?: string) {
  const rawBody = Buffer.from(JSON.stringify(pullRequest(n)));
  const headers: Record<string, string> = { 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID() };
  if (secret !== null) headers['x-hub-signature-256'] = signWebhook(secret, rawBody);
  return { provider: 'github' as const, rawBody, headers, ...(connectionId ? { connectionId } : {}) };
}

describe('webhook secrets: decrypted once, bounded per delivery', () => {
  let h: Harness;
  let opened: number;
  let deps: SyncDeps;
  let cache: ReturnType<typeof createWebhookSecretCache>;

  beforeEach(async () => {
    h = await openHarness();
    opened = 0;
    const box = h.deps.secretBox;
    const counting: SecretBox = { seal: (p) => box.seal(p), open: (s) => (opened++, box.open(s)) };
    cache = createWebhookSecretCache(counting);
    deps = { ...h.deps, secretBox: counting, webhookSecrets: cache };
  });
  afterEach(async () => {
    await h?.close();
  });

  it('an unsigned flood decrypts each secret once; a changed secret is decrypted again; a deleted connection is dropped', async () => {
    const connections = [await githubConnection(h, 'whsec_a'), await githubConnection(h, 'whsec_b'), await githubConnection(h, 'whsec_c')];
    for (let i = 0; i < 20; i++) expect((await receiveWebhook(deps, delivery('whsec_forged', i))).status).toBe(401);
    expect(opened).toBe(3);
    expect(cache.size).toBe(3);
    expect((await receiveWebhook(deps, delivery('whsec_b', 1))).body).toMatchObject({ ok: true, events: 1, connections: 1 });
    expect(opened).toBe(3);

    // The secret of connection b changes: deliveries signed with the old one are refused, the new one works.
    await h.db.query('UPDATE connections SET webhook_secret_enc = $2 WHERE id = $1', [connections[1]!.connectionId, h.deps.secretBox.seal('whsec_b2')]);
    expect((await receiveWebhook(deps, delivery('whsec_b', 2))).status).toBe(401);
    expect(opened).toBe(4);
    expect((await receiveWebhook(deps, delivery('whsec_b2', 3))).status).toBe(200);

    // A deleted connection's secret leaves memory and verifies nothing.
    await deleteConnection(h.db, connections[2]!.connectionId);
    expect((await receiveWebhook(deps, delivery('whsec_c', 4))).status).toBe(401);
    expect(cache.size).toBe(2);
    expect(opened).toBe(4);
  });

  it('a delivery without a signature of the provider\'s shape is refused before any secret is read', async () => {
    await githubConnection(h, 'whsec_a');
    expect((await receiveWebhook(deps, delivery(null))).status).toBe(401);
    const junk = delivery('whsec_a');
    expect((await receiveWebhook(deps, { ...junk, headers: { ...junk.headers, 'x-hub-signature-256': 'sha256=xyz' } })).status).toBe(401);
    expect(opened).toBe(0);
  });

  it('past maxWebhookSecrets distinct secrets, a newer connection is reached only through ?connection=', async () => {
    const capped = { ...deps, maxWebhookSecrets: 2 };
    await githubConnection(h, 'whsec_a');
    await githubConnection(h, 'whsec_shared');
    await githubConnection(h, 'whsec_shared');
    const newest = await githubConnection(h, 'whsec_z');
    // Two connections sharing a secret cost one HMAC, and both receive the delivery.
    expect((await receiveWebhook(capped, delivery('whsec_shared', 1))).body).toMatchObject({ ok: true, connections: 2 });
    expect((await receiveWebhook(capped, delivery('whsec_z', 2))).status).toBe(401);
    expect((await receiveWebhook(capped, delivery('whsec_z', 3, newest.connectionId))).body).toMatchObject({ ok: true, connections: 1 });
  });
});
