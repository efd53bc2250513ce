/**
 * The parts of the evaluation that need a running Engram: start a fresh embedded instance, create a
 * workspace and key and import the dataset through the CLI (the public import path), then call the
 * HTTP API. Everything is plain `fetch` and `child_process`; results are mapped back to dataset ids
 * through their GitHub URL.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { datasetIdFromUrl, evalCorpus } from './dataset.js';
import type { FindSimilar } from './findsimilar.js';
import type { Related, RelatedEdge } from './related.js';
import type { SearchSystem } from './run.js';

const run = promisify(execFile);

export interface EmbeddedEngram {
  url: string;
  adminToken: string;
  /** The `npm` process; the server is a descendant of it. */
  pid: number;
  stop(): Promise<void>;
}

export interface NpmProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Runs `npm run <script>` in its own process group, so stop() ends npm and everything it started. */
export function spawnNpm(repoRoot: string, script: string, env: Record<string, string | undefined>): NpmProcess {
  // An undefined value removes the variable (an embedded instance must not inherit a shell's DATABASE_URL).
  const merged = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined));
  const child: ChildProcess = spawn('npm', script === 'start' ? ['start'] : ['run', script], {
    cwd: repoRoot,
    env: merged,
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const stop = async (): Promise<void> => {
    if (child.pid === undefined) return;
    const pid = child.pid;
    const alive = (): boolean => {
      try {
        process.kill(-pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (!alive()) return;
    process.kill(-pid, 'SIGTERM');
    // npm may exit before the server it started: wait for the whole group (the server drains its jobs and
    // closes its database first), and kill what is left after a minute.
    for (const started = Date.now(); alive() && Date.now() - started < 60_000; ) await new Promise((resolve) => setTimeout(resolve, 200));
    if (alive()) process.kill(-pid, 'SIGKILL');
  };
  return { child, stop };
}

/**
 * Starts `npm start` (api + worker in one process) on a fresh data dir and waits for /readyz. `env` adds
 * to the environment (an embedding provider, or a server database for `ENGRAM_ROLE=api`); store URLs of
 * the calling shell are not inherited, so it is the embedded default unless `env` says otherwise.
 */
export async function startEmbedded(options: { repoRoot: string; dataDir: string; port: number; adminToken: string; readyTimeoutMs?: number; env?: Record<string, string> }): Promise<EmbeddedEngram> {
  const { repoRoot, dataDir, port, adminToken, readyTimeoutMs = 120_000, env = {} } = options;
  const inherited = { DATABASE_URL: undefined, REDIS_URL: undefined, VECTOR_URL: undefined, QDRANT_URL: undefined };
  const { child, stop } = spawnNpm(repoRoot, 'start', { ...inherited, PORT: String(port), ENGRAM_DATA_DIR: dataDir, ENGRAM_ADMIN_TOKEN: adminToken, ...env });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`engram exited with code ${child.exitCode} before it was ready`);
    const ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ready) return { url, adminToken, pid: child.pid!, stop };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await stop();
  throw new Error(`engram was not ready within ${readyTimeoutMs} ms`);
}

/** Runs `npx engram <args> --json` against the instance and parses the one JSON object it prints. */
export async function engramCli(engram: Pick<EmbeddedEngram, 'url' | 'adminToken'>, repoRoot: string, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run('npx', ['engram', ...args, '--json', '--url', engram.url, '--admin-token', engram.adminToken], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

export interface WorkspaceAccess {
  url: string;
  workspaceId: string;
  key: string;
}

/**
 * The corpus file to import: `corpusFile` itself, or a copy without the documents the queries were written
 * from (`evalCorpus`) when it holds any. The github-prettier corpus holds pull requests and commits only.
 */
async function withoutQuerySources(corpusFile: string): Promise<string> {
  const objects = JSON.parse(await readFile(corpusFile, 'utf8')) as unknown[];
  const kept = evalCorpus(objects);
  if (kept.length === objects.length) return corpusFile;
  const copy = join(tmpdir(), `engram-eval-corpus-${process.pid}.json`);
  await writeFile(copy, JSON.stringify(kept));
  return copy;
}

/** A new workspace and key, with the corpus imported and indexed (`--wait`). */
export async function importDataset(engram: EmbeddedEngram, repoRoot: string, corpusFile: string, repo = 'prettier/prettier'): Promise<WorkspaceAccess & { imported: Record<string, unknown> }> {
  const workspace = await engramCli(engram, repoRoot, ['workspace', 'create', '--name', `eval-${Date.now()}`]);
  const workspaceId = String(workspace.id);
  const key = String((await engramCli(engram, repoRoot, ['key', 'create', '--workspace', workspaceId])).key);
  const imported = await engramCli(engram, repoRoot, ['import', 'github', '--workspace', workspaceId, '--repo', repo, '--file', await withoutQuerySources(corpusFile), '--wait']);
  await reclustered(engram, repoRoot);
  return { url: engram.url, workspaceId, key, imported };
}

/**
 * Waits for the re-cluster the end of an import enqueues (it also rebuilds the area model `balanced`
 * reads), as a user who imports and then searches a few seconds later would have it.
 */
export async function reclustered(engram: Pick<EmbeddedEngram, 'url' | 'adminToken'>, repoRoot: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = (await engramCli(engram, repoRoot, ['status'])) as { queues?: Record<string, { waiting: number; active: number; delayed: number }> };
    const q = status.queues?.['cluster.recluster'];
    if (q && q.waiting + q.active + q.delayed === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  throw new Error(`the re-cluster after the import did not finish within ${timeoutMs} ms`);
}

async function post<T>(access: WorkspaceAccess, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${access.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access.key}`, 'x-workspace-id': access.workspaceId },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

const toDatasetIds = (items: { url: string }[]): string[] => items.flatMap((item) => datasetIdFromUrl(item.url) ?? []);

/** `POST /v1/search` in one mode, as a system the harness can score. */
export function searchMode(access: WorkspaceAccess, mode: string): SearchSystem {
  return async (query, limit) => {
    const body = await post<{ data: { url: string }[]; latency?: { total?: number } }>(access, '/v1/search', { query, limit, mode });
    return { ids: toDatasetIds(body.data), reportedMs: body.latency?.total };
  };
}

/** `POST /v1/findsimilar` by the item's URL, threshold 0 so the top k is always full. */
export function findSimilarByUrl(access: WorkspaceAccess, urlOf: (datasetId: string) => string | undefined, limit = 10): FindSimilar {
  return async (datasetId) => {
    const url = urlOf(datasetId);
    if (!url) return [];
    const body = await post<{ similar: { url: string }[] }>(access, '/v1/findsimilar', { url, limit, threshold: 0 });
    return toDatasetIds(body.similar);
  };
}

/** Engram edge type -> dataset link kind. Types not listed pass through unchanged. */
export const EDGE_KINDS: Readonly<Record<string, string>> = { fixes: 'fixes_issue', closes: 'fixes_issue', revert: 'reverts', reverts: 'reverts', references: 'references_pr' };

/** `POST /v1/related` at depth 1; the Engram id of the root comes from findsimilar's `source`. */
export function relatedByUrl(access: WorkspaceAccess, urlOf: (datasetId: string) => string | undefined): Related {
  return async (datasetId) => {
    const url = urlOf(datasetId);
    if (!url) return [];
    const { source } = await post<{ source: { id: string } }>(access, '/v1/findsimilar', { url, limit: 1, threshold: 0 });
    const { data } = await post<{ data: { nodes: { id: string; url: string }[]; edges: { source: string; target: string; type: string }[] } }>(access, '/v1/related', { id: source.id, depth: 1 });
    const byNode = new Map(data.nodes.map((node) => [node.id, datasetIdFromUrl(node.url)]));
    return data.edges.flatMap((edge): RelatedEdge[] => {
      const from = byNode.get(edge.source);
      const to = byNode.get(edge.target);
      return from && to ? [{ source: from, target: to, kind: EDGE_KINDS[edge.type] ?? edge.type }] : [];
    });
  };
}
