/**
 * The two deployments the scale benchmark runs on, each started fresh through the repository's own
 * scripts: `embedded` is `npm start` on a temp ENGRAM_DATA_DIR (PGlite, in-process queue); `distributed`
 * is an `ENGRAM_ROLE=api` process plus an `npm run worker` process over a scratch PostgreSQL database
 * (pgvector) and Redis (BullMQ, a prefix of its own), both dropped at the end.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { obliterateQueues } from '@engram/queue/bullmq';
import { spawnNpm, startEmbedded, type NpmProcess } from '../eval/service.js';
import { diskBytes } from './proc.js';

const run = promisify(execFile);

export type DeploymentKind = 'embedded' | 'distributed';

export interface Deployment {
  kind: DeploymentKind;
  url: string;
  adminToken: string;
  /** The `npm` processes whose trees hold the server(s). */
  pids: number[];
  /** Bytes the stores hold: the data dir, or the scratch database. */
  disk(): Promise<number>;
  stop(): Promise<void>;
}

const running = new Set<() => Promise<void>>();

/** Stops every deployment still running (on a signal). */
export async function stopAllDeployments(): Promise<void> {
  await Promise.allSettled([...running].map((stop) => stop()));
}

function tracked(stop: () => Promise<void>): () => Promise<void> {
  const once = async (): Promise<void> => {
    running.delete(once);
    await stop();
  };
  running.add(once);
  return once;
}

export interface ServerStores {
  /** A database on the server the scratch database is created from (e.g. postgres://postgres@127.0.0.1:5432/test_bench). */
  databaseUrl: string;
  redisUrl: string;
}

async function psql(url: string, sql: string): Promise<string> {
  const { stdout } = await run('psql', [url, '-Atqc', sql]);
  return stdout.trim();
}

async function waitReady(url: string, isAlive: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`the process behind ${url} exited before it was ready`);
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms`);
}

export async function startDeployment(options: {
  kind: DeploymentKind;
  repoRoot: string;
  port: number;
  env: Record<string, string>;
  stores?: ServerStores;
  /** Embedded only: move the data dir here when the server stops (for `bench/search-latency.ts --index`). */
  keepDataDir?: string;
}): Promise<Deployment> {
  const { kind, repoRoot, port, env } = options;
  const adminToken = randomBytes(24).toString('hex');
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-scale-'));
  if (kind === 'embedded') {
    const engram = await startEmbedded({ repoRoot, dataDir, port, adminToken, env, readyTimeoutMs: 300_000 });
    return {
      kind, url: engram.url, adminToken, pids: [engram.pid],
      disk: () => diskBytes(dataDir),
      stop: tracked(async () => {
        await engram.stop();
        if (options.keepDataDir) {
          await rm(options.keepDataDir, { recursive: true, force: true });
          await mkdir(dirname(options.keepDataDir), { recursive: true });
          // Across file systems (tmp on its own mount) a rename fails: copy, then remove.
          await rename(dataDir, options.keepDataDir).catch(async (err: NodeJS.ErrnoException) => {
            if (err.code !== 'EXDEV') throw err;
            await cp(dataDir, options.keepDataDir!, { recursive: true });
            await rm(dataDir, { recursive: true, force: true });
          });
        } else await rm(dataDir, { recursive: true, force: true });
      }),
    };
  }
  if (!options.stores) throw new Error('the distributed deployment needs a server database and Redis (--database-url, --redis-url)');
  const { databaseUrl, redisUrl } = options.stores;
  const suffix = randomBytes(4).toString('hex');
  const database = `engram_scale_${suffix}`;
  await psql(databaseUrl, `CREATE DATABASE ${database}`);
  const scratchUrl = new URL(databaseUrl);
  scratchUrl.pathname = `/${database}`;
  const prefix = `engram-scale-${suffix}`;
  const shared = { ...env, DATABASE_URL: scratchUrl.toString(), REDIS_URL: redisUrl, ENGRAM_QUEUE_PREFIX: prefix, ENGRAM_SECRET_KEY: randomBytes(24).toString('hex') };
  let worker: NpmProcess | undefined;
  const cleanup = async (): Promise<void> => {
    await worker?.stop();
    await obliterateQueues(redisUrl, prefix).catch(() => undefined);
    await psql(databaseUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // The api first (it migrates the fresh database), then the worker.
    const api = await startEmbedded({ repoRoot, dataDir, port, adminToken, env: { ...shared, ENGRAM_ROLE: 'api' }, readyTimeoutMs: 300_000 });
    try {
      worker = spawnNpm(repoRoot, 'worker', { ...shared, ENGRAM_ROLE: 'worker', ENGRAM_DATA_DIR: dataDir, PORT: String(port + 1) });
      const child = worker.child;
      await waitReady(`http://127.0.0.1:${port + 1}`, () => child.exitCode === null, 300_000);
    } catch (err) {
      await api.stop();
      throw err;
    }
    return {
      kind, url: api.url, adminToken, pids: [api.pid, worker.child.pid!],
      disk: async () => Number(await psql(databaseUrl, `SELECT pg_database_size('${database}')`)),
      stop: tracked(async () => {
        await api.stop();
        await cleanup();
      }),
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
