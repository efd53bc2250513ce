import { afterEach, describe, expect, it } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import type { ConnectorStream, StreamCursor, SyncObserver } from '../src/types.js';
import { fakeLinearId, linearFixture, startFakeLinear, type FakeLinear, type FakeLinearOptions } from '../../../test/fakes/linear/index.js';
import { createLinearConnector, type LinearConnectorOptions } from '../src/linear/index.js';

const apiKey = 'lin_api_test_0123456789';
let fake: FakeLinear | undefined;
afterEach(async () => { await fake?.close(); fake = undefined; });

async function setup(fakeOptions: Partial<FakeLinearOptions> = {}, connector: Partial<LinearConnectorOptions> = {}) {
  fake = await startFakeLinear({ apiKey, data: linearFixture(), ...fakeOptions });
  const calls = { waits: [] as number[], retries: [] as Array<number | undefined> };
  const observer: SyncObserver = {
    onRateLimitWait: ({ ms }) => calls.waits.push(ms),
    onRetry: ({ status }) => calls.retries.push(status),
  };
  const linear = createLinearConnector({ apiKey, apiUrl: fake.url, teamKey: 'ENG', observer, pageSize: 7, retry: { baseDelayMs: 20 }, ...connector });
  const stream = (name: string) => linear.streams().find((s) => s.name === name)!;
  return { fake, linear, calls, stream };
}

async function walk(stream: ConnectorStream, since?: string, from: StreamCursor | null = null) {
  const events: SourceEvent[] = [];
  let cursor = from;
  let pages = 0;
  do {
    const page = await stream.fetchPage(cursor, { since });
    events.push(...page.events);
    cursor = page.next;
    pages += 1;
  } while (cursor);
  return { events, pages };
}

const identifiers = (events: SourceEvent[]) => events.map((e) => e.metadata.identifier as string);

describe('Linear issues stream', () => {
  it('walks every issue exactly once, page by page, as valid source events', async () => {
    const { stream, fake } = await setup();
    const { events, pages } = await walk(stream('issues'));
    expect(pages).toBe(6);
    expect(new Set(identifiers(events))).toEqual(new Set(Array.from({ length: 40 }, (_, i) => `ENG-${i + 1}`)));
    expect(new Set(events.map((e) => e.externalId)).size).toBe(40);
    for (const e of events) expect(() => SourceEvent.parse(e)).not.toThrow();
    expect(fake.state.operations).toEqual(Array(6).fill('EngramIssues'));
  });

  it('normalises state, people, labels, project and GitHub PR attachments', async () => {
    const { stream } = await setup();
    const { events } = await walk(stream('issues'));
    const issue = events.find((e) => e.keys.includes('linear:ENG-11'))!;
    expect(issue).toMatchObject({
      source: 'linear', type: 'issue', externalId: `linear:issue:${fakeLinearId('issue', 11)}`,
      url: 'https://linear.app/acme/issue/ENG-11/nested-ternaries-lost-indentation-in-3-1',
      title: 'Nested ternaries lost indentation in 3.1', state: 'Done', container: 'ENG', labels: ['Bug', 'Regression'],
    });
    expect(issue.body).toMatch(/^Regression since the nested ternary change/);
    expect(issue.refs).toEqual(expect.arrayContaining([
      { key: `project:linear:${fakeLinearId('project', 'formatting-quality')}`, relation: 'in_project', confidence: 1 },
      { key: 'pr:prettier/prettier#9559', relation: 'attachment', confidence: 1 },
      { key: 'pr:prettier/prettier#15000', relation: 'attachment', confidence: 1 },
    ]));
    expect(issue.actors).toContainEqual({ role: 'assignee', provider: 'linear', login: fakeLinearId('user', 'ben'), name: 'Ben Okafor', email: 'ben@acme.dev' });
    expect(issue.actors.map((a) => a.role)).toEqual(['creator', 'assignee']);
    // The Slack thread on ENG-12 is not a GitHub object: no ref.
    const eng12 = events.find((e) => e.keys.includes('linear:ENG-12'))!;
    expect(eng12.refs.map((r) => r.key)).toEqual([`project:linear:${fakeLinearId('project', 'playground-and-tooling')}`]);
  });

  it('resumes from a serialised mid-walk cursor with no gap and no duplicate', async () => {
    const { stream, linear, fake } = await setup();
    const first = await stream('issues').fetchPage(null);
    const second = await stream('issues').fetchPage(first.next);
    const saved = JSON.parse(JSON.stringify(second.next)) as StreamCursor;
    // A fresh connector (a restarted worker) continues from the checkpoint.
    const resumed = createLinearConnector({ apiKey, apiUrl: fake.url, teamKey: 'ENG', pageSize: 7 });
    const rest = await walk(resumed.streams()[0]!, undefined, saved);
    const all = [...first.events, ...second.events, ...rest.events];
    expect(all).toHaveLength(40);
    expect(new Set(all.map((e) => e.externalId)).size).toBe(40);
    // Fetching the same cursor twice returns the same objects.
    const again = await linear.streams()[0]!.fetchPage(first.next);
    expect(again.events.map((e) => e.externalId)).toEqual(second.events.map((e) => e.externalId));
  });

  it('with since, returns only issues updated at or after it, and keeps the bound across pages', async () => {
    const { stream, fake } = await setup();
    const since = '2026-06-20T00:00:00.000Z';
    fake.state.data.issues[0]!.updatedAt = '2026-07-01T12:00:00.000Z';
    const expected = fake.state.data.issues.filter((i) => i.updatedAt >= since).map((i) => `ENG-${i.number}`);
    const first = await stream('issues').fetchPage(null, { since });
    expect(first.next).toMatchObject({ since });
    const { events } = await walk(stream('issues'), undefined, first.next);
    const got = identifiers([...first.events, ...events]);
    expect(got.sort()).toEqual(expected.sort());
    expect(got).toContain('ENG-1');
    expect(got).not.toContain('ENG-2');
  });

  it('waits out RATELIMITED answers and loses no page', async () => {
    const { stream, fake, calls } = await setup({ rateLimit: { limit: 4, windowMs: 800 } });
    const { events } = await walk(stream('issues'));
    expect(new Set(identifiers(events)).size).toBe(40);
    expect(events).toHaveLength(40);
    expect(fake.state.rateLimited).toBeGreaterThan(0);
    expect(calls.waits.length).toBe(fake.state.rateLimited);
    expect(Math.max(...calls.waits)).toBeLessThanOrEqual(900);
  });

  it('honours HTTP 429 rate limits too', async () => {
    const { stream, fake, calls } = await setup({ rateLimit: { limit: 2, windowMs: 500, status: 429 } }, { pageSize: 15 });
    const { events } = await walk(stream('issues'));
    expect(events).toHaveLength(40);
    expect(fake.state.rateLimited).toBe(1);
    expect(calls.waits).toHaveLength(1);
  });

  it('retries 5xx bursts with backoff and reports each retry', async () => {
    const { stream, fake, calls } = await setup({ failBursts: [{ afterRequests: 1, count: 2, status: 503 }, { afterRequests: 4, count: 1, status: 502 }] });
    const { events } = await walk(stream('issues'));
    expect(events).toHaveLength(40);
    expect(fake.state.failed).toBe(3);
    expect(calls.retries).toEqual([503, 503, 502]);
  });

  it('gives up after the attempt budget, and the same cursor succeeds afterwards', async () => {
    const { stream } = await setup({ failBursts: [{ afterRequests: 1, count: 3 }] }, { retry: { maxAttempts: 2, baseDelayMs: 10 } });
    const first = await stream('issues').fetchPage(null);
    await expect(stream('issues').fetchPage(first.next)).rejects.toThrow();
    const retried = await stream('issues').fetchPage(first.next);
    expect(identifiers(retried.events)).toEqual(['ENG-8', 'ENG-9', 'ENG-10', 'ENG-11', 'ENG-12', 'ENG-13', 'ENG-14']);
  });

  it('rejects a wrong API key without retrying', async () => {
    const { fake, calls } = await setup();
    const wrong = createLinearConnector({ apiKey: 'lin_api_wrong', apiUrl: fake.url, observer: { onRetry: () => calls.retries.push(0) } });
    await expect(wrong.streams()[0]!.fetchPage(null)).rejects.toThrow(/authenticat/i);
    expect(calls.retries).toEqual([]);
  });
});

describe('Linear comments and projects streams', () => {
  it('emits every comment once with a parent ref to its issue', async () => {
    const { stream } = await setup();
    const { events } = await walk(stream('comments'));
    expect(events).toHaveLength(22);
    expect(new Set(events.map((e) => e.externalId)).size).toBe(22);
    const upstream = events.find((e) => e.body.includes('pull/19630'))!;
    expect(upstream).toMatchObject({ type: 'comment', source: 'linear', container: 'ENG', title: null });
    expect(upstream.refs).toEqual([
      { key: 'linear:ENG-1', relation: 'parent', confidence: 1 },
      { key: 'pr:prettier/prettier#19630', relation: 'references', confidence: 0.8 },
    ]);
    expect(upstream.actors).toEqual([{ role: 'commenter', provider: 'linear', login: fakeLinearId('user', 'ana'), name: 'Ana Souza', email: 'ana@acme.dev' }]);
    expect(upstream.url).toMatch(/^https:\/\/linear\.app\/acme\/issue\/ENG-1\/.+#comment-/);
  });

  it('emits projects as documents keyed project:linear:<id>', async () => {
    const { stream } = await setup();
    const { events } = await walk(stream('projects'));
    expect(events.map((e) => e.title)).toEqual(['Formatting quality Q3', 'Playground and release tooling']);
    const quality = events[0]!;
    expect(quality).toMatchObject({ type: 'project', keys: [`project:linear:${fakeLinearId('project', 'formatting-quality')}`], state: 'In Progress', container: 'ENG' });
    expect(quality.body).toContain('No known formatting regressions');
    expect(quality.actors).toContainEqual(expect.objectContaining({ role: 'assignee', name: 'Chen Wei', email: 'chen@acme.dev' }));
  });
});
