import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { receiveWebhook } from '../src/index.js';
import { openHarness, stagedExternalIds, type Harness } from './harness.js';

const SECRET = 'lin_wh_engram_secret';

const issue = (updatedAt: string, title: string) => ({
  action: 'update',
  type: 'Issue',
  createdAt: updatedAt,
  url: 'https://linear.app/acme/issue/ENG-41/flaky-watcher-test',
  webhookTimestamp: Date.now(),
  webhookId: 'wh-1',
  data: {
    id: 'issue-41', identifier: 'ENG-41', number: 41, title, description: 'Fails on macOS only.',
    url: 'https://linear.app/acme/issue/ENG-41/flaky-watcher-test', priority: 2,
    createdAt: '2026-07-01T08:00:00.000Z', updatedAt,
    state: { id: 'state-progress', name: 'In Progress', type: 'started' },
    team: { id: 'team-eng', key: 'ENG', name: 'Engineering' },
    assignee: { id: 'user-ana', name: 'Ana Souza', email: 'ana@acme.dev' },
    labels: [{ id: 'label-bug', name: 'Bug' }],
  },
});

function delivery(connectionId: string, payload: unknown, options: { secret?: string; deliveryId?: string } = {}) {
  const rawBody = Buffer.from(JSON.stringify(payload));
  return {
    provider: 'linear' as const,
    connectionId,
    rawBody,
    headers: {
      'linear-event': 'Issue',
      'linear-delivery': options.deliveryId ?? `d-${Math.random()}`,
      'linear-signature': createHmac('sha256', options.secret ?? SECRET).update(rawBody).digest('hex'),
    },
  };
}

describe('Linear webhooks through the sync engine', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('stages a signed delivery once, answers a redelivery as duplicate, and rejects a bad signature', async () => {
    const workspaceId = await testWorkspace(h.db, 'linear-hooks');
    const conn = await createConnection(h.db, h.deps.secretBox, { workspaceId, provider: 'linear', config: { teamKey: 'ENG' }, token: 'lin_api_x', webhookSecret: SECRET });
    const d = delivery(conn.id, issue('2026-07-02T10:00:00.000Z', 'Flaky watcher test on macOS'), { deliveryId: 'lin-1' });
    expect(await receiveWebhook(h.deps, d)).toMatchObject({ status: 200, body: { ok: true, duplicate: false, events: 1 } });
    expect(await receiveWebhook(h.deps, d)).toMatchObject({ status: 200, body: { ok: true, duplicate: true } });
    const forged = await receiveWebhook(h.deps, delivery(conn.id, issue('2026-07-03T10:00:00.000Z', 'Forged title'), { secret: 'wrong' }));
    expect(forged.status).toBe(401);
    const staged = await stagedExternalIds(h.db, workspaceId);
    expect([...staged.values()]).toEqual([1]);
    const titles = await h.db.query<{ title: string }>("SELECT event->>'title' AS title FROM source_events WHERE workspace_id = $1", [workspaceId]);
    expect(titles.rows.map((r) => r.title)).toEqual(['Flaky watcher test on macOS']);
  });
});
