/**
 * Throwaway stores the chaos suite owns, so it can stop and restart them without touching anyone else's:
 * a PostgreSQL cluster made with `initdb` in a temp dir (run as the `postgres` user when this process is
 * root) and a `redis-server` with an append-only file fsynced on every write (the durability BullMQ
 * needs to lose no job across a Redis crash). Both listen on free loopback ports.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '../e2e/processes.js';

const run = promisify(execFile);

function postgresBinDir(): string | null {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    return existsSync(join(dir, 'initdb')) ? dir : null;
  } catch {
    return null;
  }
}

const onPath = (bin: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Why the suite cannot own its stores here, or null when it can. */
export function ownStoresUnavailable(): string | null {
  if (!postgresBinDir()) return 'no PostgreSQL server binaries (pg_config --bindir with initdb)';
  if (!onPath('redis-server')) return 'no redis-server binary';
  if (userInfo().uid === 0) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root without a postgres user to run the cluster';
    }
  }
  return null;
}

const asRoot = userInfo().uid === 0;
/** Runs a PostgreSQL binary as the cluster's owner. */
function pgCommand(bin: string, args: string[]): [string, string[]] {
  const path = join(postgresBinDir()!, bin);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

export interface OwnPostgres {
  url: string;
  /** Stops the server at once (`-m immediate`: no checkpoint, as a crash); clients see their connections die. */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-chaos-pg-'));
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const data = join(dir, 'data');
  const port = await freePort();
  await run(...pgCommand('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']));
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c shared_buffers=64MB`;
  const start = async () => {
    await run(...pgCommand('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']));
  };
  const stop = async () => {
    await run(...pgCommand('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']));
  };
  await start();
  await run('psql', [`postgres://postgres@127.0.0.1:${port}/postgres`, '-Atqc', 'CREATE DATABASE engram']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/engram`,
    start,
    stop,
    async destroy() {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnRedis {
  url: string;
  /** SIGKILL: the server dies with whatever it had not written; the AOF keeps every acknowledged write. */
  kill(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-chaos-redis-'));
  if (asRoot) chownSync(dir, 0, 0);
  const port = await freePort();
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'], { stdio: 'ignore' });
    await waitFor('redis up', async () => {
      try {
        await run('redis-cli', ['-p', String(port), 'ping']);
        return true;
      } catch {
        return false;
      }
    }, 20_000, 100);
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
    child = null;
  };
  await start();
  return {
    url,
    start,
    kill,
    async destroy() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
