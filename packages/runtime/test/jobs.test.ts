import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import { createIndexer } from '@engram/indexer';
import { createHashEmbedder, stageAndIndex } from '@engram/indexer/testing';
import { jobCatalog } from '@engram/queue';
import { createWorkspace, getAreaModelVersion, getStagedEvent, stageEvents } from '@engram/stores';
import { createLogger, createRuntime, loadConfig, startJobs, type Jobs, type Runtime } from '../src/index.js';
import { indexEventHandler } from '../src/jobs/indexEvent.js';

const change = (n: number, file: string): SourceEvent =>
  SourceEvent.parse({
    source: 'github',
    type: 'pull_request',
    externalId: `github:acme/app:pull_request:${n}`,
    url: `https://github.com/acme/app/pull/${n}`,
    title: `Change ${n} to ${file}`,
    body: '',
    occurredAt: '2025-01-10T10:00:00.000Z',
    updatedAt: '2025-01-10T10:00:00.000Z',
    keys: [`pr:acme/app#${n}`],
    container: 'acme/app',
    files: [file],
  });

/**
 * A runtime on a fresh data dir with a silent logger (or one that keeps its info lines in `logLines`);
 * `close` stops its jobs (if started) and removes the dir.
 */
async function testRuntime(prefix: string, env: Record<string, string> = {}, embedder = createHashEmbedder({ dimensions: 64 }), logLines?: string[]) {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const level = logLines ? 'info' : 'warn';
  const logger = createLogger({ level, name: 'jobs-test', destination: new Writable({ write: (chunk, _e, done) => (logLines?.push(String(chunk)), done()) }) });
  const runtime = await createRuntime(loadConfig({ ENGRAM_DATA_DIR: dataDir, LOG_LEVEL: level, ...env }), logger, { embedder });
  let jobs: Jobs | undefined;
  return {
    runtime,
    async startJobs() {
      jobs = await startJobs(runtime);
    },
    async close() {
      await jobs?.stop();
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe('background jobs keep the area model current', () => {
  let t: Awaited<ReturnType<typeof testRuntime>>;
  let runtime: Runtime;
  beforeAll(async () => {
    t = await testRuntime('engram-jobs-');
    runtime = t.runtime;
  }, 60_000);
  afterAll(async () => t?.close());

  it('builds it at boot for an index that has none, and again once a burst of indexing goes quiet', async () => {
    const ws = (await createWorkspace(runtime.db, 'jobs')).id;
    // Indexed without the jobs, as an index from before the area model was.
    const indexer = createIndexer({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder });
    await stageAndIndex(runtime.db, indexer, ws, [change(1, 'src/a.js'), change(2, 'src/a.js'), change(3, 'src/b.js')]);
    expect(await getAreaModelVersion(runtime.db, ws)).toBeNull();

    await t.startJobs();
    await runtime.queue.idle();
    expect(await getAreaModelVersion(runtime.db, ws)).toMatchObject({ changes: 3 });

    // Two bursts through the queue, a few seconds apart: the re-cluster after each counts all of it.
    for (const [burst, total] of [[[4, 5], 5], [[6, 7, 8], 8]] as const) {
      const { ids } = await stageEvents(runtime.db, { workspaceId: ws, events: burst.map((n) => change(n, 'src/c.js')) });
      await runtime.queue.enqueueMany('index.event', ids.map((eventId) => ({ payload: { workspaceId: ws, eventId }, jobId: eventId })));
      await runtime.queue.idle();
      expect(await getAreaModelVersion(runtime.db, ws)).toMatchObject({ changes: total });
    }
  }, 60_000);
});

describe('re-clusters during a burst of indexing', () => {
  let t: Awaited<ReturnType<typeof testRuntime>>;
  let runtime: Runtime;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await testRuntime('engram-jobs-burst-', {}, undefined, lines);
    runtime = t.runtime;
    await t.startJobs();
  }, 60_000);
  afterAll(async () => t?.close());

  const reclustersOf = (ws: string) => lines.filter((l) => l.includes('"recluster done"') && l.includes(ws)).length;
  const burst = async (ws: string, numbers: number[]) => {
    const { ids } = await stageEvents(runtime.db, { workspaceId: ws, events: numbers.map((n) => change(n, `src/f${n % 5}.js`)) });
    await runtime.queue.enqueueMany('index.event', ids.map((eventId) => ({ payload: { workspaceId: ws, eventId }, jobId: eventId })));
    await runtime.queue.idle();
  };

  it('re-clusters a small import into a large workspace once, when it is over; a new workspace also during it', async () => {
    const small = (await createWorkspace(runtime.db, 'new')).id;
    await burst(small, [1, 2, 3]);
    // The burst's own re-cluster (everything in it is new), then the one once it is quiet.
    expect(reclustersOf(small)).toBe(2);

    const large = (await createWorkspace(runtime.db, 'large')).id;
    const indexer = createIndexer({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder });
    await stageAndIndex(runtime.db, indexer, large, Array.from({ length: 40 }, (_, i) => change(100 + i, `src/f${i % 5}.js`)));
    await burst(large, [200, 201]);
    // Two new items of 42: only the re-cluster once the burst is over, which holds them.
    expect(reclustersOf(large)).toBe(1);
    expect(await getAreaModelVersion(runtime.db, large)).toMatchObject({ changes: 42 });
  }, 90_000);
});

describe('an event whose every attempt failed', () => {
  let t: Awaited<ReturnType<typeof testRuntime>>;
  let runtime: Runtime;
  beforeAll(async () => {
    // An embedding provider that rejects every call, as one does with a wrong API key.
    const rejecting = { ...createHashEmbedder({ dimensions: 64 }), embed: async () => Promise.reject(new Error('401 Incorrect API key provided.')) };
    t = await testRuntime('engram-jobs-failed-', {}, rejecting);
    runtime = t.runtime;
  }, 60_000);
  afterAll(async () => t?.close());

  it('is marked failed with the error on its last attempt (its import no longer waits on it), and stays pending before', async () => {
    const ws = (await createWorkspace(runtime.db, 'failing')).id;
    const { ids } = await stageEvents(runtime.db, { workspaceId: ws, events: [change(1, 'src/a.js')] });
    const handler = indexEventHandler(runtime, createIndexer({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder }))['index.event']!;
    const attempt = (n: number) => handler({ workspaceId: ws, eventId: ids[0]! }, { jobId: ids[0]!, attempt: n, signal: new AbortController().signal });
    await expect(attempt(1)).rejects.toThrow(/Incorrect API key/);
    expect((await getStagedEvent(runtime.db, ids[0]!))?.status).toBe('pending');
    await expect(attempt(jobCatalog['index.event'].attempts)).rejects.toThrow(/Incorrect API key/);
    const event = await runtime.db.query<{ status: string; error: string }>('SELECT status, error FROM source_events WHERE id = $1', [ids[0]]);
    expect(event.rows[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/gave up after 6 attempt\(s\): 401 Incorrect API key/) });
  });
});

describe('a staged event whose job was lost', () => {
  let t: Awaited<ReturnType<typeof testRuntime>>;
  let runtime: Runtime;
  beforeAll(async () => {
    t = await testRuntime('engram-jobs-sweep-', { PENDING_SWEEP_MS: '500' });
    runtime = t.runtime;
    await t.startJobs();
  }, 60_000);
  afterAll(async () => t?.close());

  it('is indexed by the pending-event sweep, with no restart (staged, then the process died or the queue was down before the enqueue)', async () => {
    const ws = (await createWorkspace(runtime.db, 'sweep')).id;
    // Staged while the jobs run, never enqueued: what an api killed between the two writes leaves.
    const { ids } = await stageEvents(runtime.db, { workspaceId: ws, events: [change(1, 'src/a.js'), change(2, 'src/b.js')] });
    expect((await getStagedEvent(runtime.db, ids[0]!))?.status).toBe('pending');
    await expect
      .poll(async () => Promise.all(ids.map(async (id) => (await getStagedEvent(runtime.db, id))?.status)), { timeout: 20_000, interval: 250 })
      .toEqual(['indexed', 'indexed']);
  }, 30_000);
});

describe("people's expertise as items are indexed", () => {
  let t: Awaited<ReturnType<typeof testRuntime>>;
  let runtime: Runtime;
  beforeAll(async () => {
    t = await testRuntime('engram-jobs-expertise-');
    runtime = t.runtime;
    await t.startJobs();
  }, 60_000);
  afterAll(async () => t?.close());

  const authored = (n: number, file: string, login: string): SourceEvent =>
    SourceEvent.parse({ ...change(n, file), actors: [{ role: 'author', provider: 'github', login }] });
  const index = async (ws: string, events: SourceEvent[]) => {
    const { ids } = await stageEvents(runtime.db, { workspaceId: ws, events });
    await runtime.queue.enqueueMany('index.event', ids.map((eventId) => ({ payload: { workspaceId: ws, eventId }, jobId: eventId })));
    await runtime.queue.idle();
  };
  const domainsOf = async (ws: string, login: string) =>
    (await runtime.db.query<{ expertise_domains: string[] }>(
      "SELECT a.expertise_domains FROM actors a JOIN actor_identities i ON i.actor_id = a.id WHERE a.workspace_id = $1 AND i.kind = 'login:github' AND i.value = $2",
      [ws, login],
    )).rows[0]?.expertise_domains;

  it('follows each import, including a second one by the same person, and leaves no actor marked stale', async () => {
    const ws = (await createWorkspace(runtime.db, 'expertise')).id;
    await index(ws, [
      authored(1, 'src/language-markdown/printer-markdown.js', 'dave'),
      authored(2, 'src/language-markdown/parser-markdown.js', 'dave'),
      authored(3, 'src/language-css/printer-postcss.js', 'carol'),
      authored(4, 'src/language-css/parser-postcss.js', 'carol'),
    ]);
    expect(await domainsOf(ws, 'dave')).toContain('Markdown');
    expect(await domainsOf(ws, 'carol')).not.toContain('Markdown');

    // The same person again: a pass per import, not one per set of people that was already done once.
    await index(ws, [authored(5, 'src/language-markdown/utils.js', 'carol'), authored(6, 'src/language-markdown/clean.js', 'carol'), authored(7, 'src/language-markdown/print-whitespace.js', 'carol')]);
    expect(await domainsOf(ws, 'carol')).toContain('Markdown');
    const stale = await runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM actor_expertise_stale WHERE workspace_id = $1', [ws]);
    expect(Number(stale.rows[0]!.n)).toBe(0);
  }, 60_000);
});
