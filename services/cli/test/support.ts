/**
 * The real api in-process (every route, as `npm start` mounts them; the indexer's deterministic test
 * embedder) and the `engram` bin as a child process, as a user runs it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createHashEmbedder } from '@engram/indexer/testing';
import { createLogger, createRuntime, loadConfig, type Runtime } from '@engram/runtime';
import { createApp } from '../../api/src/app.js';
import { allRoutes } from '../../api/src/routes/index.js';

export const BIN = fileURLToPath(new URL('../bin/engram.js', import.meta.url));

export interface AdminServer {
  url: string;
  runtime: Runtime;
  adminToken: string;
  /** Paths of the requests the server answered, in order. */
  paths: string[];
  close(): Promise<void>;
}

export async function startAdminServer(): Promise<AdminServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-cli-'));
  const paths: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim()) continue;
        const entry = JSON.parse(line) as { msg?: string; method?: string; path?: string };
        if (entry.msg === 'request') paths.push(`${entry.method} ${entry.path}`);
      }
      done();
    },
  });
  const config = loadConfig({ ENGRAM_DATA_DIR: dataDir, DATABASE_URL: 'pglite://memory', LOG_LEVEL: 'info', SYNC_INTERVAL_MS: '3600000' });
  const runtime = await createRuntime(config, createLogger({ level: 'info', name: 'engram-cli-test', destination: sink }), { embedder: createHashEmbedder({ dimensions: 128 }) });
  const app = createApp(runtime, allRoutes(runtime));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    runtime,
    adminToken: runtime.admin.token!,
    paths,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

/** Runs `node bin/engram.js ...args` with only the given environment (plus PATH), optionally piping stdin. */
export function engram(args: string[], env: Record<string, string> = {}, stdin?: string, cwd?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, ...(cwd ? { cwd } : {}) }, (err, stdout, stderr) => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        // not JSON: human output
      }
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
    });
    child.stdin?.end(stdin ?? '');
  });
}
