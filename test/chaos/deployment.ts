/**
 * The distributed deployment as separate processes: one api (`ENGRAM_ROLE=api`) and one worker
 * (`services/worker`), each `node --import tsx` with no launcher in between, so a SIGKILL hits the
 * process that holds the work. Either can be killed and started again on the same stores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, ROOT, startServer, type ServerProcess } from '../e2e/processes.js';

export interface Deployment {
  api: ServerProcess;
  worker: ChildProcess;
  adminToken: string;
  /** SIGKILLs one process and starts it again; resolves once it is ready. */
  killAndRestart(which: 'api' | 'worker'): Promise<void>;
  stop(): Promise<void>;
}

async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/worker/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1', ENGRAM_ROLE: 'worker' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-10_000)));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`worker exited before it was ready:\n${log}`);
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) return child;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker not ready in time:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

export async function startDeployment(env: Record<string, string>): Promise<Deployment> {
  // The api first: it migrates the fresh database (the worker would wait on the schema lock anyway).
  const d: Deployment = {
    api: await startServer({ ...env, ENGRAM_ROLE: 'api' }),
    worker: await startWorker(env),
    adminToken: env.ENGRAM_ADMIN_TOKEN!,
    async killAndRestart(which) {
      if (which === 'api') {
        d.api.child.kill('SIGKILL');
        await d.api.exited;
        d.api = await startServer({ ...env, ENGRAM_ROLE: 'api', PORT: new URL(d.api.url).port });
      } else {
        d.worker.kill('SIGKILL');
        await exited(d.worker);
        d.worker = await startWorker(env);
      }
    },
    async stop() {
      d.api.child.kill('SIGKILL');
      d.worker.kill('SIGKILL');
      await Promise.all([d.api.exited, exited(d.worker)]);
    },
  };
  return d;
}
