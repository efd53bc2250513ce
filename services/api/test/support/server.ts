/**
 * Boots the real api in-process (real runtime, real stores, real search engine) on port 0, and drives
 * it over HTTP. Only the embedding model is replaced, by the indexer's deterministic test embedder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { SourceEventInput } from '@engram/contracts';
import { SourceEvent } from '@engram/contracts';
import { createIndexer } from '@engram/indexer';
import { createHashEmbedder, stageAndIndex } from '@engram/indexer/testing';
import { createLogger, createRuntime, loadConfig, type Runtime } from '@engram/runtime';
import { createApiKey, createWorkspace } from '@engram/stores';
import { closeAppLimits, createApp } from '../../src/app.js';
import { docsRoutes } from '../../src/routes/docs.js';
import { queryServiceFor, v1Routes } from '../../src/routes/v1/index.js';
import { mcpRoutes } from '../../src/mcp/routes.js';

export interface Backend {
  name: string;
  env: Record<string, string>;
}

/**
 * Configurations the conformance suites run against: embedded (PGlite, in-process queue) always; the
 * distributed one (server Postgres + BullMQ; vectors on VECTOR_URL, else embedded) when DATABASE_URL and
 * REDIS_URL name servers.
 */
export function backends(): Backend[] {
  const list: Backend[] = [{ name: 'embedded', env: { DATABASE_URL: 'pglite://memory' } }];
  const db = process.env.ENGRAM_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  const redis = process.env.REDIS_URL;
  if (db?.startsWith('postgres') && redis) {
    list.push({
      name: 'distributed',
      env: {
        DATABASE_URL: db,
        REDIS_URL: redis,
        ENGRAM_SECRET_KEY: process.env.ENGRAM_SECRET_KEY ?? 'conformance-secret-key-0123456789',
        ENGRAM_QUEUE_PREFIX: `engram-conformance-${process.pid}`,
        // This machine's PostgreSQL has no pgvector: vectors stay embedded unless VECTOR_URL names a
        // pgvector or Qdrant server (as in the compose deployment). One process runs api and worker.
        VECTOR_URL: process.env.VECTOR_URL ?? 'pglite://memory',
        ENGRAM_ROLE: 'all',
      },
    });
  } else if (process.env.CI === 'true') throw new Error('CI=true but DATABASE_URL/REDIS_URL are not set: the distributed conformance suite must run in CI');
  return list;
}

/** A JSON response body, read loosely by assertions (the schemas are what the tests check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response JSON
export type Body = Record<string, any>;

export interface Tenant {
  workspaceId: string;
  key: string;
}

export interface CallOptions {
  key?: string | null;
  workspace?: string | null;
  /** Raw body text instead of JSON.stringify(body). */
  raw?: string;
}

export interface Api {
  base: string;
  runtime: Runtime;
  /** Log lines the server wrote (parsed JSON). */
  logs: Record<string, unknown>[];
  /** The same lines as written (a key written twice shows only here). */
  rawLogs: string[];
  tenant(label?: string): Promise<Tenant>;
  /** Stages and indexes events through the real indexer; returns their item ids in order. */
  index(workspaceId: string, events: SourceEventInput[]): Promise<string[]>;
  post(path: string, body: unknown, tenant: Tenant | null, options?: CallOptions): Promise<{ status: number; body: Body; headers: Headers }>;
  close(): Promise<void>;
}

export async function startApi(backend: Backend): Promise<Api> {
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-api-'));
  const logs: Record<string, unknown>[] = [];
  const rawLogs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim()) continue;
        rawLogs.push(line);
        logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  const logger = createLogger({ level: 'info', name: 'engram-api-test', destination: sink });
  const config = loadConfig({ ENGRAM_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...backend.env });
  const embedder = createHashEmbedder({ dimensions: 128 });
  const runtime = await createRuntime(config, logger, { embedder });
  const indexer = createIndexer({ db: runtime.db, vectors: runtime.vectors, embedder: runtime.embedder });
  const queries = queryServiceFor(runtime);
  const app = createApp(runtime, { api: v1Routes(runtime, queries), mcp: mcpRoutes(runtime.db, queries), docs: docsRoutes() });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  return {
    base,
    runtime,
    logs,
    rawLogs,
    async tenant(label = 'conformance') {
      const ws = await createWorkspace(runtime.db, `${label}-${Math.random().toString(36).slice(2, 8)}`);
      const key = await createApiKey(runtime.db, ws.id);
      return { workspaceId: ws.id, key: key.key };
    },
    async index(workspaceId, events) {
      return stageAndIndex(runtime.db, indexer, workspaceId, events.map((e) => SourceEvent.parse(e)));
    },
    async post(path, body, tenant, options = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const key = options.key === undefined ? tenant?.key : options.key;
      const workspace = options.workspace === undefined ? tenant?.workspaceId : options.workspace;
      if (key) headers.authorization = `Bearer ${key}`;
      if (workspace) headers['x-workspace-id'] = workspace;
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: options.raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Body) : {}, headers: res.headers };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeAppLimits(app);
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
