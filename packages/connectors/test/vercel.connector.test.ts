import { afterEach, describe, expect, it } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import type { ConnectorStream, StreamCursor, SyncObserver } from '../src/types.js';
import { startFakeVercel, vercelFixture, type FakeVercel, type FakeVercelOptions } from '../../../test/fakes/vercel/index.js';
import { createVercelConnector, type VercelConnectorOptions } from '../src/vercel/index.js';

const token = 'vercel_test_token_123';
const fixture = vercelFixture();
const projectId = fixture.project.id;
let fake: FakeVercel | undefined;
afterEach(async () => { await fake?.close(); fake = undefined; });

async function setup(fakeOptions: Partial<FakeVercelOptions> = {}, connector: Partial<VercelConnectorOptions> = {}) {
  const data = vercelFixture();
  fake = await startFakeVercel({ token, deployments: data.deployments, events: data.events, ...fakeOptions });
  const calls = { waits: [] as number[], retries: [] as Array<number | undefined> };
  const observer: SyncObserver = { onRateLimitWait: ({ ms }) => calls.waits.push(ms), onRetry: ({ status }) => calls.retries.push(status) };
  const vercel = createVercelConnector({ token, projectId, teamId: 'team_acme', baseUrl: fake.url, observer, pageSize: 6, retry: { baseDelayMs: 20 }, ...connector });
  const stream = (name: string) => vercel.streams().find((s) => s.name === name)!;
  return { fake, vercel, calls, stream };
}

async function walk(stream: ConnectorStream, since?: string, from: StreamCursor | null = null) {
  const events: SourceEvent[] = [];
  let cursor = from;
  do {
    const page = await stream.fetchPage(cursor, { since });
    events.push(...page.events);
    cursor = page.next;
  } while (cursor);
  return events;
}

const uidOf = (e: SourceEvent) => e.keys[0] ?? e.refs[0]!.key;

describe('Vercel deployments stream', () => {
  it('walks every deployment exactly once, newest first, as valid source events', async () => {
    const { stream, fake } = await setup();
    const events = await walk(stream('deployments'));
    expect(events).toHaveLength(25);
    expect(new Set(events.map((e) => e.externalId)).size).toBe(25);
    for (const e of events) expect(() => SourceEvent.parse(e)).not.toThrow();
    expect(events.map((e) => e.occurredAt)).toEqual([...events.map((e) => e.occurredAt)].sort().reverse());
    expect(fake.state.log.every((l) => l.includes(`projectId=${projectId}`) && l.includes('teamId=team_acme'))).toBe(true);
    expect(fake.state.log).toHaveLength(5);
  });

  it('normalises commit, branch, creator and state', async () => {
    const { stream } = await setup();
    const events = await walk(stream('deployments'));
    const meriyah = fixture.deployments[22]!;
    const event = events.find((e) => e.keys[0] === `deployment:${meriyah.uid}`)!;
    expect(event).toMatchObject({
      source: 'vercel', type: 'deployment', externalId: `vercel:deployment:${meriyah.uid}`, url: `https://${meriyah.url}`,
      title: 'Production deployment of main (ERROR)', state: 'ERROR', container: 'prettier-playground', labels: ['production'],
      occurredAt: new Date(meriyah.created).toISOString(),
    });
    expect(event.body).toBe('Update meriyah to v7.2 (#19702)\n\nState: ERROR');
    expect(event.refs).toEqual([
      { key: 'commit:4f84a934201322ca87750e2b9b25baf296da6560', relation: 'built_from', confidence: 1 },
      { key: 'branch:prettier/prettier:main', relation: 'on_branch', confidence: 1 },
    ]);
    expect(event.actors).toEqual([
      { role: 'creator', provider: 'vercel', login: 'fisker-cheung', email: 'fisker@acme.dev' },
      { role: 'author', provider: 'github', login: 'fisker-cheung', name: 'fisker Cheung' },
    ]);
    const preview = events.find((e) => e.keys[0] === `deployment:${fixture.deployments[4]!.uid}`)!;
    expect(preview.title).toBe('Preview deployment of playground-vendor-parsers (ERROR)');
    expect(preview.refs[1]).toEqual({ key: 'branch:prettier/prettier:playground-vendor-parsers', relation: 'on_branch', confidence: 1 });
  });

  it('resumes from a serialised mid-walk cursor with no gap and no duplicate', async () => {
    const { stream, fake } = await setup();
    const first = await stream('deployments').fetchPage(null);
    const second = await stream('deployments').fetchPage(first.next);
    const saved = JSON.parse(JSON.stringify(second.next)) as StreamCursor;
    const restarted = createVercelConnector({ token, projectId, baseUrl: fake.url, pageSize: 6 });
    const rest = await walk(restarted.streams()[0]!, undefined, saved);
    const all = [...first.events, ...second.events, ...rest];
    expect(all).toHaveLength(25);
    expect(new Set(all.map((e) => e.externalId)).size).toBe(25);
    const again = await stream('deployments').fetchPage(first.next);
    expect(again.events.map((e) => e.externalId)).toEqual(second.events.map((e) => e.externalId));
  });

  it('with since, returns only deployments created at or after it', async () => {
    const { stream } = await setup();
    const boundary = fixture.deployments[18]!;
    const events = await walk(stream('deployments'), new Date(boundary.created).toISOString());
    expect(events.map(uidOf).sort()).toEqual(fixture.deployments.slice(18).map((d) => `deployment:${d.uid}`).sort());
  });

  it('waits for x-ratelimit-reset on 429 and loses nothing', async () => {
    const { stream, fake, calls } = await setup({ rateLimit: { limit: 3, windowMs: 1000 } });
    const events = await walk(stream('deployments'));
    expect(events).toHaveLength(25);
    expect(new Set(events.map((e) => e.externalId)).size).toBe(25);
    expect(fake.state.rateLimited).toBeGreaterThan(0);
    expect(calls.waits).toHaveLength(fake.state.rateLimited);
    expect(Math.max(...calls.waits)).toBeLessThanOrEqual(1100);
  });

  it('retries 5xx bursts and reports each retry', async () => {
    const { stream, fake, calls } = await setup({ failBursts: [{ afterRequests: 2, count: 2, status: 502 }, { afterRequests: 5, count: 1, status: 500 }] });
    const events = await walk(stream('deployments'));
    expect(events).toHaveLength(25);
    expect(fake.state.failed).toBe(3);
    expect(calls.retries).toEqual([502, 502, 500]);
  });

  it('fails on a bad token without retrying', async () => {
    const { fake, calls } = await setup();
    const wrong = createVercelConnector({ token: 'nope', projectId, baseUrl: fake.url, observer: { onRetry: () => calls.retries.push(0) } });
    await expect(wrong.streams()[0]!.fetchPage(null)).rejects.toThrow(/403 forbidden/);
    expect(calls.retries).toEqual([]);
  });
});

describe('Vercel build_logs stream', () => {
  it('emits one build log per finished deployment, linked to the deployment and commit', async () => {
    const { stream } = await setup();
    const logs = await walk(stream('build_logs'));
    expect(logs).toHaveLength(25);
    expect(new Set(logs.map((e) => e.externalId)).size).toBe(25);
    const vendor = fixture.deployments[4]!;
    const log = logs.find((e) => e.externalId === `vercel:build_log:${vendor.uid}`)!;
    expect(log).toMatchObject({ type: 'build_log', state: 'ERROR', url: vendor.inspectorUrl, container: 'prettier-playground' });
    expect(log.refs).toEqual([
      { key: `deployment:${vendor.uid}`, relation: 'parent', confidence: 1 },
      { key: 'commit:9d0c3b1e5f7a2c4e6b8d0f1a3c5e7b9d1f3a5c7e', relation: 'built_from', confidence: 1 },
    ]);
    expect(log.body).toContain("Error: Cannot find module './vendors/parser-babel.js'");
    expect(log.body.split('\n')[0]).toBe('Running build in Washington, D.C., USA (East) – iad1');
    expect(logs.find((e) => e.externalId.endsWith(fixture.deployments[15]!.uid))!.body).toContain('JavaScript heap out of memory');
  });

  it('skips deployments still building and picks them up once finished', async () => {
    const { stream, fake } = await setup();
    fake.state.deployments[24]!.state = 'BUILDING';
    const first = await walk(stream('build_logs'));
    expect(first).toHaveLength(24);
    fake.state.deployments[24]!.state = 'READY';
    const since = new Date(fake.state.deployments[24]!.created).toISOString();
    const later = await walk(stream('build_logs'), since);
    expect(later.map((e) => e.externalId)).toEqual([`vercel:build_log:${fixture.deployments[24]!.uid}`]);
  });
});
