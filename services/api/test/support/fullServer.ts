/**
 * The whole api in-process (every router: v1, admin, webhooks), on port 0, with the environment a test
 * chooses (limits, tokens). Only the embedding model is replaced by the deterministic test embedder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createHashEmbedder } from '@engram/indexer/testing';
import { createLogger, createRuntime, loadConfig, type Runtime } from '@engram/runtime';
import { createApiKey, createWorkspace } from '@engram/stores';
import { closeAppLimits, createApp } from '../../src/app.js';
import { listen } from '../../src/http/server.js';
import { allRoutes } from '../../src/routes/index.js';

export const ADMIN_TOKEN = 'egadm_test_admin_token_0123456789';

export interface FullServer {
  base: string;
  runtime: Runtime;
  dataDir: string;
  logs: string[];
  tenant(): Promise<{ workspaceId: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

export async function startFullServer(env: Record<string, string> = {}): Promise<FullServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-full-'));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString().split('\n').filter((l) => l.trim()));
      done();
    },
  });
  const logger = createLogger({ level: 'info', name: 'engram-api-test', destination: sink });
  const config = loadConfig({ DATABASE_URL: 'pglite://memory', ENGRAM_DATA_DIR: dataDir, ENGRAM_ADMIN_TOKEN: ADMIN_TOKEN, ...env });
  const runtime = await createRuntime(config, logger, { embedder: createHashEmbedder({ dimensions: 128 }) });
  const app = createApp(runtime, allRoutes(runtime));
  // The server main.ts runs: its timeouts from the configuration.
  const server: Server = await listen(app, config.http, 0, '127.0.0.1');
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    base,
    runtime,
    dataDir,
    logs,
    async tenant() {
      const ws = await createWorkspace(runtime.db, `hardening-${Math.random().toString(36).slice(2, 8)}`);
      const key = await createApiKey(runtime.db, ws.id);
      return { workspaceId: ws.id, key: key.key, keyId: key.id };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeAppLimits(app);
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
