import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getImportProgress } from '@engram/stores';
import { hasPrettierCorpus, PRETTIER_CORPUS_PATH, prettierSubset, signWebhook } from '../../../test/fakes/github/index.js';
import { importGitHubExport, receiveWebhook } from '../src/index.js';
import { githubConnection, openHarness, REPO, stagedCount, stagedExternalIds, type Harness } from './harness.js';

const SECRET = 'whsec_engram_test_secret';

function delivery(payload: unknown, options: { secret?: string; deliveryId?: string; event?: string } = {}) {
  const rawBody = Buffer.from(JSON.stringify(payload));
  return {
    provider: 'github' as const,
    rawBody,
    headers: {
      'x-github-event': options.event ?? 'pull_request',
      'x-github-delivery': options.deliveryId ?? randomUUID(),
      'x-hub-signature-256': signWebhook(options.secret ?? SECRET, rawBody),
    },
  };
}

const deliveries = async (h: Harness, connectionId: string) =>
  Number((await h.db.query<{ n: string }>('SELECT count(*) AS n FROM webhook_deliveries WHERE connection_id = $1', [connectionId])).rows[0]?.n);

describe.skipIf(!hasPrettierCorpus())(`webhooks and imports (corpus: ${PRETTIER_CORPUS_PATH})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a delivery sent twice stages one item and records one delivery; the second answer says duplicate', async () => {
    const { workspaceId, connectionId } = await githubConnection(h, SECRET);
    const pull = prettierSubset({ pulls: 1, commits: 0 }).pulls[0]!;
    const d = delivery({ action: 'edited', pull_request: pull, repository: { full_name: REPO } });
    const first = await receiveWebhook(h.deps, d);
    const second = await receiveWebhook(h.deps, d);
    expect(first).toMatchObject({ status: 200, body: { ok: true, duplicate: false, events: 1 } });
    expect(second).toMatchObject({ status: 200, body: { ok: true, duplicate: true } });
    expect([...(await stagedExternalIds(h.db, workspaceId)).entries()]).toEqual([[`github:${REPO}:pull_request:${pull.number}`, 1]]);
    expect(await deliveries(h, connectionId)).toBe(1);
    const staged = await h.db.query<{ updated: string }>("SELECT event->>'updatedAt' AS updated FROM source_events WHERE workspace_id = $1", [workspaceId]);
    expect(Date.parse(staged.rows[0]!.updated)).toBe(Date.parse(pull.updated_at ?? pull.created_at));
  });

  it('a bad or missing signature is 401 and stores nothing', async () => {
    const { workspaceId, connectionId } = await githubConnection(h, SECRET);
    const pull = prettierSubset({ pulls: 2, commits: 0 }).pulls[1]!;
    const payload = { action: 'opened', pull_request: pull, repository: { full_name: REPO } };
    const forged = await receiveWebhook(h.deps, delivery(payload, { secret: 'not-the-secret' }));
    const unsigned = delivery(payload);
    delete (unsigned.headers as Record<string, string | undefined>)['x-hub-signature-256'];
    const missing = await receiveWebhook(h.deps, unsigned);
    expect(forged.status).toBe(401);
    expect(missing.status).toBe(401);
    expect(await stagedCount(h.db, workspaceId)).toBe(0);
    expect(await deliveries(h, connectionId)).toBe(0);
  });

  it('importing the same file twice is one import and changes nothing; invalid objects are reported by index', async () => {
    const workspaceId = (await githubConnection(h)).workspaceId;
    const s = prettierSubset({ pulls: 5, commits: 7 });
    const lines = [...s.pulls, { type: 'pull_request', title: 'no number, no url' }, ...s.commits].map((o) => JSON.stringify(o));
    const content = `${lines.join('\n')}\n`;
    const first = await importGitHubExport(h.deps, { workspaceId, repo: REPO, content });
    expect(first).toMatchObject({ received: 13, staged: 12, inserted: 12, invalid: 1 });
    expect(first.errors[0]?.index).toBe(5);
    const second = await importGitHubExport(h.deps, { workspaceId, repo: REPO, content });
    expect(second).toMatchObject({ importId: first.importId, staged: 12, inserted: 0, invalid: 1 });
    expect(await stagedCount(h.db, workspaceId)).toBe(12);
    expect(await getImportProgress(h.db, first.importId)).toMatchObject({ events: 12, received: 13, invalid: 1 });

    const asArray = await importGitHubExport(h.deps, { workspaceId, repo: REPO, content: JSON.stringify([...s.pulls, ...s.commits]) });
    expect(asArray).toMatchObject({ staged: 12, inserted: 0, invalid: 0 });
  });
});
