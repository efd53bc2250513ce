/** Shared set-up of the sync tests: a real PGlite database, the in-process queue, the fake GitHub. */
import { randomBytes } from 'node:crypto';
import { createMemoryQueue, type JobQueue } from '@engram/queue';
import { createBullQueue, obliterateQueues } from '@engram/queue/bullmq';
import { createConnection, createSecretBox, listSyncCursors, markEvent, type Db, type SyncMode } from '@engram/stores';
import { openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { createGitHubConnector } from '../src/github/index.js';
import type { ConnectorFactory } from '../src/registry.js';
import { runSyncPage } from '../src/sync/index.js';
import type { SyncDeps } from '../src/sync/index.js';

export const REPO = 'prettier/prettier';
export const TOKEN = 'ghp_fake_token_for_tests';

export interface Harness {
  db: Db;
  deps: SyncDeps;
  queue: JobQueue;
  /** Where the connector talks to; tests may swap it for another fake server. */
  target: { url: string };
  close(): Promise<void>;
}

/**
 * The production GitHub connector, pointed at `target.url`, with small pages (so a few dozen objects
 * make several pages) and short retry backoff. The queue has no workers unless a test starts them.
 */
export async function openHarness(options: { perPage?: number; databaseUrl?: string; redisUrl?: string } = {}): Promise<Harness> {
  const db = await openTestDatabase(options.databaseUrl ?? 'pglite://memory');
  const prefix = `engram-test-${randomBytes(4).toString('hex')}`;
  const queue = options.redisUrl ? createBullQueue(options.redisUrl, { prefix }) : createMemoryQueue();
  const target = { url: '' };
  const connectorFor: ConnectorFactory = (c, o) =>
    createGitHubConnector({ repo: c.config.repo ?? REPO, token: c.token, baseUrl: target.url, perPage: options.perPage ?? 10, retryBaseMs: 5, retries: 5, ...(o?.observer ? { observer: o.observer } : {}) });
  const deps: SyncDeps = { db, queue, secretBox: createSecretBox(randomBytes(24).toString('hex')), connectorFor };
  const close = async () => {
    await queue.close(1_000);
    if (options.redisUrl) await obliterateQueues(options.redisUrl, prefix);
    await db.close();
  };
  return { db, deps, queue, target, close };
}

export async function githubConnection(h: Harness, webhookSecret?: string): Promise<{ workspaceId: string; connectionId: string }> {
  const workspaceId = await testWorkspace(h.db, 'sync');
  const c = await createConnection(h.db, h.deps.secretBox, { workspaceId, provider: 'github', config: { repo: REPO }, token: TOKEN, ...(webhookSecret ? { webhookSecret } : {}) });
  return { workspaceId, connectionId: c.id };
}

/** Runs the queue's workers: `sync.page` through the engine, `index.event` marking the event indexed. */
export function startWorkers(h: Harness): void {
  h.queue.process({
    'sync.page': async (payload, ctx) => {
      await runSyncPage(h.deps, payload, { attempt: ctx.attempt, maxAttempts: 10, signal: ctx.signal });
    },
    'index.event': async ({ eventId }) => markEvent(h.db, eventId, 'indexed'),
  });
}

/** Drives every running walk of a connection page by page, the way the queue would, without it. */
export async function driveWalks(deps: SyncDeps, connectionId: string, mode: SyncMode): Promise<void> {
  for (let guard = 0; guard < 10_000; guard++) {
    const running = (await listSyncCursors(deps.db, connectionId)).filter((c) => c.mode === mode && (c.state === 'running' || c.state === 'waiting'));
    if (running.length === 0) return;
    for (const c of running) await runSyncPage(deps, { connectionId, stream: c.stream, mode });
  }
  throw new Error('walks did not finish');
}

export async function stagedExternalIds(db: Db, workspaceId: string): Promise<Map<string, number>> {
  const res = await db.query<{ external_id: string; n: string }>('SELECT external_id, count(*) AS n FROM source_events WHERE workspace_id = $1 GROUP BY external_id', [workspaceId]);
  return new Map(res.rows.map((r) => [r.external_id, Number(r.n)]));
}

export async function stagedCount(db: Db, workspaceId: string): Promise<number> {
  const res = await db.query<{ n: string }>('SELECT count(*) AS n FROM source_events WHERE workspace_id = $1', [workspaceId]);
  return Number(res.rows[0]?.n ?? 0);
}

export const randomSha = (): string => randomBytes(20).toString('hex');
