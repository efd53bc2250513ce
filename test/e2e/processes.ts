/** The real server and CLI as child processes, for end-to-end tests and the backfill benchmark. */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string | null>;
}

/** This process's environment without the store URLs: the server runs on the embedded default unless told. */
function embeddedEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['DATABASE_URL', 'VECTOR_URL', 'REDIS_URL', 'ENGRAM_ADMIN_TOKEN', 'ENGRAM_ROLE']) delete env[k];
  return env;
}

/** Starts `services/api/src/main.ts` (node + tsx, no npx in between, so signals reach the server itself). */
export async function startServer(env: Record<string, string>, options: { readyTimeoutMs?: number } = {}): Promise<ServerProcess> {
  const port = Number(env.PORT) || (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/api/src/main.ts'], {
    cwd: ROOT,
    env: { ...embeddedEnv(), LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`server exited before it was ready:\n${log}`);
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready in time:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, child, output: () => log, exited };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed: with --json it is exactly one JSON object. */
  json: Record<string, unknown>;
}

/** Runs `engram` through its package bin, as `npx engram` would. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['services/cli/bin/engram.js', ...args], { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        // not JSON: left empty; tests assert on it
      }
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr, json });
    });
  });
}

/** GET an admin endpoint; a reset keep-alive socket (the server closed it as we sent) is tried again. */
export async function adminGet<T>(server: { url: string; output?: () => string }, token: string, path: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    } catch (err) {
      if (attempt < 3) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      throw new Error(`GET ${path}: ${(err as Error).message}; server output:\n${server.output?.() ?? ''}`);
    }
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
