import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSyncCursor, listSyncCursors } from '@engram/stores';
import { databaseBackends, redisUrl } from '@engram/stores/testing';
import { hasPrettierCorpus, PRETTIER_CORPUS_PATH, prettierSubset, startFakeGitHub, type FakeGitHub } from '../../../test/fakes/github/index.js';
import { normalizeGitHubObject } from '../src/github/index.js';
import { runSyncPage, startBackfill } from '../src/sync/index.js';
import type { SyncDeps } from '../src/sync/index.js';
import { driveWalks, githubConnection, openHarness, randomSha, REPO, stagedCount, stagedExternalIds, startWorkers, TOKEN, type Harness } from './harness.js';

const subset = () => prettierSubset({ pulls: 24, commits: 36 });
const items = () => { const s = subset(); return [...s.pulls, ...s.commits]; };
const expectedIds = () => new Set(items().map((o) => normalizeGitHubObject(o, REPO).externalId));

const backends = databaseBackends().map((b) => ({ ...b, redis: b.name === 'postgres' ? redisUrl() : undefined }));

describe.skipIf(!hasPrettierCorpus()).each(backends)(`sync engine against the fake GitHub on $name (corpus: ${PRETTIER_CORPUS_PATH})`, (backend) => {
  let h: Harness;
  let fake: FakeGitHub;
  beforeAll(async () => {
    h = await openHarness({ perPage: 10, databaseUrl: backend.url, ...(backend.redis ? { redisUrl: backend.redis } : {}) });
    fake = await startFakeGitHub({ repo: REPO, token: TOKEN, items: items() });
    h.target.url = fake.url;
  });
  afterAll(async () => {
    await fake?.close();
    await h?.close();
  });

  it('a crash between staging and the checkpoint re-fetches that page, stages nothing new, and resumes from the checkpoint', async () => {
    const { workspaceId, connectionId } = await githubConnection(h);
    await startBackfill(h.deps, { connectionId });
    const key = { connectionId, stream: 'commits', mode: 'backfill' as const };
    // The process dies right after the page is staged: enqueueing its indexing throws.
    const crashing: SyncDeps = { ...h.deps, queue: { ...h.deps.queue, enqueueMany: () => Promise.reject(new Error('killed')) } };
    await expect(runSyncPage(crashing, key)).rejects.toThrow('killed');
    expect(await stagedCount(h.db, workspaceId)).toBe(10);
    expect(await getSyncCursor(h.db, connectionId, 'commits', 'backfill')).toMatchObject({ pages: 0, cursor: null, state: 'running' });

    const again = await runSyncPage(h.deps, key);
    expect(again).toMatchObject({ outcome: 'checkpointed', events: 10, staged: 0, done: false });
    expect(await getSyncCursor(h.db, connectionId, 'commits', 'backfill')).toMatchObject({ pages: 1, items: 10 });

    // A restarted worker (new connector, same database) continues at page 2, never from the start.
    const before = fake.state.log.length;
    await runSyncPage(h.deps, key);
    const lists = fake.state.log.slice(before).filter((l) => /\/commits\?/.test(l.path));
    expect(lists[0]?.path).toContain('page=2');
    await driveWalks(h.deps, connectionId, 'backfill');
    const staged = await stagedExternalIds(h.db, workspaceId);
    expect(new Set(staged.keys())).toEqual(expectedIds());
    expect([...staged.values()].every((n) => n === 1)).toBe(true);
  });

  it('incremental sync after a backfill stages only what changed since the high-water mark', async () => {
    const { workspaceId, connectionId } = await githubConnection(h);
    await startBackfill(h.deps, { connectionId });
    await driveWalks(h.deps, connectionId, 'backfill');
    const before = await stagedCount(h.db, workspaceId);

    const now = new Date().toISOString();
    const s = subset();
    const edited = { ...s.pulls[3]!, title: 'Edited after the backfill', updated_at: now };
    const base = s.commits[0]!;
    const pushed = { ...base, sha: randomSha(), commit: { ...base.commit, message: 'A commit pushed after the backfill', author: { ...base.commit.author, date: now }, committer: { ...base.commit.committer, date: now } } };
    const changed = await startFakeGitHub({ repo: REPO, token: TOKEN, items: [...s.pulls.map((p) => (p.number === edited.number ? edited : p)), pushed, ...s.commits] });
    h.target.url = changed.url;
    try {
      expect(await runSyncPage(h.deps, { connectionId, stream: '*', mode: 'incremental' })).toMatchObject({ outcome: 'started' });
      await driveWalks(h.deps, connectionId, 'incremental');
    } finally {
      h.target.url = fake.url;
      await changed.close();
    }
    const res = await h.db.query<{ external_id: string; title: string }>(
      "SELECT external_id, event->>'title' AS title FROM source_events WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT $2", [workspaceId, (await stagedCount(h.db, workspaceId)) - before],
    );
    expect(res.rows.map((r) => r.external_id).sort()).toEqual([`github:${REPO}:commit:${pushed.sha}`, `github:${REPO}:pull_request:${edited.number}`].sort());
    expect(res.rows.find((r) => r.external_id.includes('pull_request'))?.title).toBe('Edited after the backfill');
    const cursors = (await listSyncCursors(h.db, connectionId)).filter((c) => c.mode === 'incremental');
    expect(cursors.length).toBeGreaterThan(0);
    expect(cursors.every((c) => c.state === 'done')).toBe(true);
  });

  it('a second backfill of unchanged data stages nothing new', async () => {
    const { workspaceId, connectionId } = await githubConnection(h);
    await startBackfill(h.deps, { connectionId });
    await driveWalks(h.deps, connectionId, 'backfill');
    const first = await stagedCount(h.db, workspaceId);
    await startBackfill(h.deps, { connectionId });
    await driveWalks(h.deps, connectionId, 'backfill');
    expect(await stagedCount(h.db, workspaceId)).toBe(first);
  });
  // From here on the queue's workers run: the tests above drive pages by hand.
  it('a backfill through the queue stages every object exactly once and finishes every stream', async () => {
    const q = h;
    {
      const { workspaceId, connectionId } = await githubConnection(q);
      startWorkers(q);
      await startBackfill(q.deps, { connectionId });
      await q.queue.idle();
      const staged = await stagedExternalIds(q.db, workspaceId);
      expect(new Set(staged.keys())).toEqual(expectedIds());
      expect([...staged.values()].every((n) => n === 1)).toBe(true);
      const cursors = await listSyncCursors(q.db, connectionId);
      expect(cursors.map((c) => c.state)).toEqual(cursors.map(() => 'done'));
      expect(cursors.find((c) => c.stream === 'commits')).toMatchObject({ items: 36, pages: 4 });
      expect(cursors.every((c) => c.highWater !== null)).toBe(true);
      const pending = await q.db.query("SELECT 1 FROM source_events WHERE workspace_id = $1 AND status <> 'indexed'", [workspaceId]);
      expect(pending.rows).toHaveLength(0);
    }
  });


  it('waits through primary and secondary limits and 5xx bursts, counts the waits, and loses nothing', async () => {
    const s = prettierSubset({ pulls: 6, commits: 14 });
    const faulty = await startFakeGitHub({
      repo: REPO, token: TOKEN, items: [...s.pulls, ...s.commits],
      rateLimit: { limit: 30, resetMs: 1_000 },
      secondaryLimit: { every: 37, retryAfterSeconds: 1 },
      failBursts: { every: 11, length: 2, status: 502 },
    });
    h.target.url = faulty.url;
    try {
      const { workspaceId, connectionId } = await githubConnection(h);
      await startBackfill(h.deps, { connectionId });
      await h.queue.idle();
      const staged = await stagedExternalIds(h.db, workspaceId);
      expect(new Set(staged.keys())).toEqual(new Set([...s.pulls, ...s.commits].map((o) => normalizeGitHubObject(o, REPO).externalId)));
      expect([...staged.values()].every((n) => n === 1)).toBe(true);
      expect(faulty.state.failed).toBeGreaterThan(0);
      expect(faulty.state.rateLimited + faulty.state.secondaryLimited).toBeGreaterThan(0);
      const cursors = await listSyncCursors(h.db, connectionId);
      expect(cursors.every((c) => c.state === 'done')).toBe(true);
      expect(cursors.reduce((n, c) => n + c.rateLimitWaits, 0)).toBeGreaterThan(0);
    } finally {
      h.target.url = fake.url;
      await faulty.close();
    }
  });
});
