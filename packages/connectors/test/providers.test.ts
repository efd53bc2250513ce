import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection, listSyncCursors } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { linearFixture, startFakeLinear, type FakeLinear } from '../../../test/fakes/linear/index.js';
import { startFakeVercel, vercelFixture, type FakeVercel } from '../../../test/fakes/vercel/index.js';
import { startBackfill } from '../src/sync/index.js';
import { driveWalks, openHarness, stagedCount, stagedExternalIds, type Harness } from './harness.js';

/** Linear and Vercel connections built by the production registry from their stored config. */
describe('sync engine with Linear and Vercel connections (registry-built connectors)', () => {
  let h: Harness;
  let linear: FakeLinear;
  let vercel: FakeVercel;
  const fixture = vercelFixture();
  beforeAll(async () => {
    const base = await openHarness();
    h = { ...base, deps: { ...base.deps, connectorFor: undefined } };
    linear = await startFakeLinear({ apiKey: 'lin_api_test', data: linearFixture(), failBursts: [{ afterRequests: 2, count: 1 }] });
    vercel = await startFakeVercel({ token: 'vercel_test', deployments: fixture.deployments, events: fixture.events, failBursts: [{ afterRequests: 3, count: 1 }] });
  });
  afterAll(async () => {
    await linear?.close();
    await vercel?.close();
    await h?.close();
  });

  const backfillTwice = async (connectionId: string, workspaceId: string) => {
    await startBackfill(h.deps, { connectionId });
    await driveWalks(h.deps, connectionId, 'backfill');
    const first = await stagedExternalIds(h.db, workspaceId);
    await startBackfill(h.deps, { connectionId });
    await driveWalks(h.deps, connectionId, 'backfill');
    return { first, again: await stagedCount(h.db, workspaceId), cursors: await listSyncCursors(h.db, connectionId) };
  };

  it('backfills a Linear workspace: every issue, comment and project once, through a 5xx', async () => {
    const workspaceId = await testWorkspace(h.db, 'linear');
    const c = await createConnection(h.db, h.deps.secretBox, { workspaceId, provider: 'linear', config: { apiUrl: linear.url }, token: 'lin_api_test' });
    const { first, again, cursors } = await backfillTwice(c.id, workspaceId);
    const data = linear.state.data;
    expect(first.size).toBe(data.issues.length + data.comments.length + data.projects.length);
    expect([...first.values()].every((n) => n === 1)).toBe(true);
    expect(again).toBe(first.size);
    expect(cursors.every((x) => x.state === 'done')).toBe(true);
    expect(linear.state.failed).toBeGreaterThan(0);
  });

  it('backfills a Vercel project: every deployment once, through a 5xx', async () => {
    const workspaceId = await testWorkspace(h.db, 'vercel');
    const c = await createConnection(h.db, h.deps.secretBox, { workspaceId, provider: 'vercel', config: { projectId: fixture.project.id, baseUrl: vercel.url }, token: 'vercel_test' });
    const { first, again, cursors } = await backfillTwice(c.id, workspaceId);
    const deployments = [...first.keys()].filter((k) => k.includes('deployment'));
    expect(deployments.length).toBeGreaterThanOrEqual(fixture.deployments.filter((d) => d.projectId === fixture.project.id).length);
    expect([...first.values()].every((n) => n === 1)).toBe(true);
    expect(again).toBe(first.size);
    expect(cursors.every((x) => x.state === 'done')).toBe(true);
    expect(vercel.state.failed).toBeGreaterThan(0);
  });
});
