import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import { startFakeVercel, vercelFixture, type FakeVercel } from '../../../test/fakes/vercel/index.js';
import { createVercelConnector, normalizeVercelWebhook, verifyVercelSignature } from '../src/vercel/index.js';

const token = 'vercel_proxy_token';
const fixture = vercelFixture();
const projectId = fixture.project.id;
let fake: FakeVercel | undefined;
afterEach(async () => { await fake?.close(); fake = undefined; });

async function connector() {
  fake = await startFakeVercel({ token });
  return createVercelConnector({ token, projectId, baseUrl: fake.url, retry: { baseDelayMs: 10 } });
}
const run = async (vercel: ReturnType<typeof createVercelConnector>, name: string, params: Record<string, unknown>) => {
  const action = vercel.actions().find((a) => a.action === name)!;
  return action.run(action.params.parse(params));
};

describe('Vercel fetchByUrl', () => {
  it('fetches a deployment by its vercel.app URL or its inspector URL', async () => {
    const vercel = await connector();
    const d = fixture.deployments[10]!;
    const byHost = await vercel.fetchByUrl(`https://${d.url}/playground/`);
    expect(byHost).toMatchObject({ keys: [`deployment:${d.uid}`], title: 'Preview deployment of property-signature-same-line (ERROR)' });
    expect(byHost!.body).toContain('Error: Command "yarn build:website" exited with 2');
    const byInspector = await vercel.fetchByUrl(d.inspectorUrl);
    expect(byInspector).toEqual(byHost);
  });

  it('returns null for unknown deployments and URLs that are not deployments', async () => {
    const vercel = await connector();
    expect(await vercel.fetchByUrl('https://prettier-playground-zzzzzzzzz-acme.vercel.app')).toBeNull();
    expect(await vercel.fetchByUrl('https://github.com/prettier/prettier/pull/19702')).toBeNull();
    expect(fake!.state.log).toHaveLength(1);
  });
});

describe('Vercel proxy', () => {
  it('advertises the project and three actions', async () => {
    const vercel = await connector();
    expect(vercel.resources()).toEqual([{ name: projectId, params: { projectId }, syncing: ['deployments', 'build_logs'] }]);
    expect(vercel.actions().map((a) => a.action)).toEqual(['vercel.list-deployments', 'vercel.get-deployment', 'vercel.get-deployment-events']);
  });

  it('lists failed production deployments, gets one, and reads its log tail', async () => {
    const vercel = await connector();
    const list = await run(vercel, 'vercel.list-deployments', { target: 'production', state: 'ERROR' });
    expect(list.status).toBe(200);
    const deployments = (list.data as { deployments: Array<{ uid: string; meta: { githubCommitRef: string } }> }).deployments;
    expect(deployments.map((d) => d.uid)).toEqual([fixture.deployments[22]!.uid]);
    const one = await run(vercel, 'vercel.get-deployment', { idOrUrl: deployments[0]!.uid });
    expect(one.data).toMatchObject({ id: deployments[0]!.uid, readyState: 'ERROR', errorMessage: 'Command "yarn build:website" exited with 1' });
    const tail = await run(vercel, 'vercel.get-deployment-events', { idOrUrl: deployments[0]!.uid, direction: 'backward', limit: 1 });
    expect((tail.data as Array<{ text: string }>).map((e) => e.text)).toEqual(['Error: Command "yarn build:website" exited with 1']);
    expect(Object.keys(tail.headers).some((h) => /authorization|cookie/i.test(h))).toBe(false);
  });

  it('passes Vercel errors through as status and body', async () => {
    const vercel = await connector();
    const missing = await run(vercel, 'vercel.get-deployment', { idOrUrl: 'dpl_doesnotexist' });
    expect(missing).toMatchObject({ status: 404, data: { error: { code: 'not_found' } } });
  });
});

describe('Vercel webhooks', () => {
  const secret = 'vercel_wh_secret';
  const delivery = {
    id: 'evt_2Fq9xYz', type: 'deployment.error', createdAt: 1784894400000, region: 'iad1',
    payload: {
      team: { id: 'team_acme' }, user: { id: 'usr_fisker' },
      deployment: { id: 'dpl_9f8e7d6c5b4a', url: 'prettier-playground-k2j3h4g5f-acme.vercel.app', name: 'prettier-playground', meta: fixture.deployments[22]!.meta },
      links: { deployment: 'https://vercel.com/acme/prettier-playground/9f8e7d6c5b4a', project: 'https://vercel.com/acme/prettier-playground' },
      target: 'production', project: { id: projectId }, plan: 'pro', regions: ['iad1'],
    },
  };
  const body = JSON.stringify(delivery);
  const sign = (raw: string, key = secret) => createHmac('sha1', key).update(raw).digest('hex');

  it('verifies the HMAC-SHA1 signature and rejects tampering', () => {
    expect(verifyVercelSignature(secret, body, sign(body))).toBe(true);
    expect(verifyVercelSignature(secret, body.replace('deployment.error', 'deployment.succeeded'), sign(body))).toBe(false);
    expect(verifyVercelSignature(secret, body, sign(body, 'wrong'))).toBe(false);
    expect(verifyVercelSignature(secret, body, null)).toBe(false);
  });

  it('normalises deployment.error into a deployment with the announced state', () => {
    const event = normalizeVercelWebhook(delivery)!;
    expect(() => SourceEvent.parse(event)).not.toThrow();
    expect(event).toMatchObject({
      type: 'deployment', externalId: 'vercel:deployment:dpl_9f8e7d6c5b4a', keys: ['deployment:dpl_9f8e7d6c5b4a'], state: 'ERROR',
      title: 'Production deployment of main (ERROR)', url: 'https://prettier-playground-k2j3h4g5f-acme.vercel.app', updatedAt: '2026-07-24T12:00:00.000Z',
    });
    expect(event.refs.map((r) => r.key)).toEqual(['commit:4f84a934201322ca87750e2b9b25baf296da6560', 'branch:prettier/prettier:main']);
    expect(normalizeVercelWebhook({ ...delivery, type: 'deployment.succeeded' })!.state).toBe('READY');
    expect(normalizeVercelWebhook({ ...delivery, type: 'deployment.created' })!.state).toBe('BUILDING');
    expect(normalizeVercelWebhook({ ...delivery, type: 'project.created' })).toBeNull();
    expect(normalizeVercelWebhook({ nope: true })).toBeNull();
  });
});
