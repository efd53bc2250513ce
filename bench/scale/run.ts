/**
 * One run of the scale benchmark: a fresh deployment, a generated corpus imported through
 * `engram import github --wait`, then search load idle and during a second import and its re-cluster,
 * memory and disk. Each phase records the load average at its start and end.
 */
import { normalizeGitHubObject } from '@engram/connectors';
import { embeddingChunks } from '@engram/indexer';
import { createOfflineEmbedder } from '@engram/indexer/embeddings';
import { engramCli, reclustered } from '../eval/service.js';
import type { CorpusManifest } from './corpusFiles.js';
import { startDeployment, type DeploymentKind, type ServerStores } from './deploy.js';
import type { SourcePull, SourceCommit } from './generate.js';
import { filteredTotals, healthSampler, importSettled, searchLoad, warmUp, type Access, type LoadResult } from './load.js';
import { loadAverage, memoryParts, memorySampler, settledMemory, type MemorySampler } from './proc.js';

export type EmbedderKind = 'offline' | 'fast';
export const MODES = ['fast', 'balanced'] as const;

export interface Phase {
  name: string;
  seconds: number;
  loadStart: [number, number, number];
  loadEnd: [number, number, number];
}

export interface IngestResult {
  items: number;
  files: number;
  seconds: number;
  itemsPerS: number;
  indexed: number;
  failed: number;
  /** The re-cluster (and area model) the import's end enqueues, from the import's end until idle. */
  reclusterSeconds: number;
  /** From the import's end until no job is left (the re-cluster and the expertise passes): then the idle phases run. */
  settleSeconds?: number;
}

export interface RunResult {
  deployment: DeploymentKind;
  embedder: EmbedderKind;
  size: number;
  startedAt: string;
  phases: Phase[];
  ingest?: IngestResult;
  /** mode -> clients -> result */
  search: Record<string, Record<string, LoadResult>>;
  /** `finished` is false when the import and its re-cluster outlasted the phase's cap (`importSeconds` is then the cap). */
  duringImport?: { items: number; finished: boolean; importSeconds: number; load: LoadResult; healthz: Awaited<ReturnType<ReturnType<typeof healthSampler>['stop']>> };
  /** RSS of the server: right after the import and its re-cluster, after the idle search phases (the server in use), and the peak. */
  /** `settledBytes`: the resident set after the import once it stopped falling (`settledAfterS` later). */
  memory?: { afterImportBytes: number; settledBytes?: number; settledAfterS?: number; afterSearchBytes?: number; peakBytes: number; peakPhase?: string };
  /** The server's own account of its memory (MB per part, from `/metrics`) at the same two moments, and as the peak was sampled (with the resident set then). */
  memoryParts?: { afterImport: Record<string, number>; afterSearch?: Record<string, number>; atPeak?: Record<string, number>; atPeakBytes?: number };
  disk?: { bytes: number; bytesPerItem: number };
  totals?: Awaited<ReturnType<typeof filteredTotals>>;
  error?: string;
}

export interface RunContext {
  repoRoot: string;
  port: number;
  durationS: number;
  /** Longest the search-during-import phase runs, s; the import may be left unfinished. */
  maxDuringS: number;
  queries: string[];
  stores?: ServerStores;
  /** Keep each embedded run's data dir as `<keepIndex>/<embedder>-<size>`. */
  keepIndex?: string;
  embedderEnv: (kind: EmbedderKind) => Record<string, string>;
  log: (message: string) => void;
  /** Called after every phase, so a run that fails later still leaves a report. */
  checkpoint: (result: RunResult) => Promise<void>;
}

async function phase<T>(result: RunResult, name: string, ctx: RunContext, fn: () => Promise<T>, memory?: MemorySampler): Promise<T> {
  memory?.label(name);
  const loadStart = loadAverage();
  const t0 = performance.now();
  ctx.log(`${result.deployment}/${result.embedder}/${result.size}: ${name} (load ${loadStart.join(' ')})`);
  try {
    return await fn();
  } finally {
    result.phases.push({ name, seconds: Math.round((performance.now() - t0) / 100) / 10, loadStart, loadEnd: loadAverage() });
    await ctx.checkpoint(result);
  }
}

type Status = { queues?: Record<string, { waiting: number; active: number; delayed: number }> };

/** Waits until no queue holds a job (waiting, running or delayed). */
async function atRest(engram: { url: string; adminToken: string }, repoRoot: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = (await engramCli(engram, repoRoot, ['status'])) as Status;
    if (Object.values(status.queues ?? {}).every((q) => q.waiting + q.active + q.delayed === 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  throw new Error(`the jobs the import left did not finish within ${timeoutMs} ms`);
}

/** Imports every file of a corpus at once, each through `engram import github --wait`. */
async function importAll(engram: { url: string; adminToken: string }, ctx: RunContext, workspaceId: string, manifest: CorpusManifest): Promise<{ seconds: number; indexed: number; failed: number }> {
  const t0 = performance.now();
  const results = await Promise.all(
    manifest.files.map((f) => engramCli(engram, ctx.repoRoot, ['import', 'github', '--workspace', workspaceId, '--repo', f.repo, '--file', f.file, '--wait', '--poll-ms', '2000'])),
  );
  return {
    seconds: (performance.now() - t0) / 1000,
    indexed: results.reduce((sum, r) => sum + Number(r.indexed ?? 0), 0),
    failed: results.reduce((sum, r) => sum + Number(r.failed ?? 0), 0),
  };
}

/**
 * The offline encoder alone on exactly the texts the indexer embeds for these items (the import's
 * normalisation, then `embeddingChunks`: title and body, long ones in chunks), so items/s here and the
 * pipeline's items/s compare one amount of model work.
 */
export async function encoderThroughput(items: readonly (SourcePull | SourceCommit)[]): Promise<EncoderThroughput> {
  const texts = items.flatMap(indexedTexts);
  const loadStart = loadAverage();
  // Every thread up front: at rest the encoder keeps one, and a second one starting inside the timed run would
  // understate the encoder's own rate.
  const embedder = await createOfflineEmbedder({ minThreads: 2 });
  await embedder.embed(texts.slice(0, 8));
  const t0 = performance.now();
  await embedder.embed(texts);
  const seconds = (performance.now() - t0) / 1000;
  await embedder.close();
  const rate = (n: number): number => Math.round((n / seconds) * 10) / 10;
  return { items: items.length, texts: texts.length, seconds: Math.round(seconds * 10) / 10, itemsPerS: rate(items.length), textsPerS: rate(texts.length), loadStart, loadEnd: loadAverage() };
}

export interface EncoderThroughput {
  items: number;
  texts: number;
  seconds: number;
  itemsPerS: number;
  textsPerS: number;
  loadStart: number[];
  loadEnd: number[];
}

/** What the indexer embeds for one exported item: the texts of its chunks. */
const indexedTexts = (item: SourcePull | SourceCommit): string[] => {
  const event = normalizeGitHubObject(item, 'scale-org/encoder');
  return embeddingChunks({ title: event.title, body: event.body });
};

export async function runScale(
  ctx: RunContext,
  spec: { deployment: DeploymentKind; embedder: EmbedderKind; size: number; corpus: CorpusManifest; extra: CorpusManifest },
): Promise<RunResult> {
  const result: RunResult = { deployment: spec.deployment, embedder: spec.embedder, size: spec.size, startedAt: new Date().toISOString(), phases: [], search: {} };
  const deployment = await phase(result, 'start', ctx, () =>
    startDeployment({ kind: spec.deployment, repoRoot: ctx.repoRoot, port: ctx.port, env: ctx.embedderEnv(spec.embedder), stores: ctx.stores, ...(ctx.keepIndex && spec.deployment === 'embedded' ? { keepDataDir: `${ctx.keepIndex}/${spec.embedder}-${spec.size}` } : {}) }),
  );
  const memory = memorySampler(deployment.pids, 2_000, () => memoryParts(deployment.url, deployment.adminToken));
  try {
    const workspace = await engramCli(deployment, ctx.repoRoot, ['workspace', 'create', '--name', `scale-${spec.size}`]);
    const workspaceId = String(workspace.id);
    const key = String((await engramCli(deployment, ctx.repoRoot, ['key', 'create', '--workspace', workspaceId])).key);
    const access: Access = { url: deployment.url, workspaceId, key };

    await phase(result, 'import', ctx, async () => {
      const imported = await importAll(deployment, ctx, workspaceId, spec.corpus);
      const t1 = performance.now();
      await reclustered(deployment, ctx.repoRoot, 3 * 3600_000);
      const reclusterSeconds = Math.round((performance.now() - t1) / 100) / 10;
      // The idle phases measure an index at rest: every job the import left (expertise passes) done too.
      await atRest(deployment, ctx.repoRoot, 3600_000);
      result.ingest = {
        items: spec.corpus.count, files: spec.corpus.files.length, seconds: Math.round(imported.seconds * 10) / 10,
        itemsPerS: Math.round((spec.corpus.count / imported.seconds) * 10) / 10, indexed: imported.indexed, failed: imported.failed,
        reclusterSeconds,
        settleSeconds: Math.round((performance.now() - t1) / 100) / 10,
      };
    }, memory);
    result.memory = { afterImportBytes: memory.last(), peakBytes: memory.peak(), peakPhase: memory.peakLabel() };
    result.memoryParts = { afterImport: await memoryParts(deployment.url, deployment.adminToken) };
    await phase(result, 'memory at rest', ctx, async () => {
      const settled = await settledMemory(memory, { everyMs: 5_000, windowMs: 45_000, maxMs: 300_000 });
      result.memory = { ...result.memory!, settledBytes: settled.bytes, settledAfterS: settled.seconds };
    }, memory);
    const bytes = await deployment.disk();
    result.disk = { bytes, bytesPerItem: Math.round(bytes / spec.corpus.count) };

    for (const mode of MODES) {
      result.search[mode] = {};
      await warmUp(access, mode, ctx.queries);
      for (const connections of [1, 16]) {
        await phase(result, `search ${mode} x${connections}`, ctx, async () => {
          result.search[mode]![String(connections)] = await searchLoad(access, { mode, queries: ctx.queries, connections, durationS: ctx.durationS });
        }, memory);
      }
    }
    await phase(result, 'meta.total with a filter', ctx, async () => {
      result.totals = await filteredTotals(access, ctx.queries.slice(0, 40));
    }, memory);
    result.memory = { ...result.memory!, afterSearchBytes: memory.last() };
    result.memoryParts = { ...result.memoryParts!, afterSearch: await memoryParts(deployment.url, deployment.adminToken) };

    await phase(result, 'search fast x16 during an import and a re-cluster', ctx, async () => {
      const health = healthSampler(deployment.url);
      let importDoneAt = 0;
      let importSeconds = 0;
      const t0 = performance.now();
      const importing = importAll(deployment, ctx, workspaceId, spec.extra).then((r) => {
        importDoneAt = performance.now();
        importSeconds = r.seconds;
      });
      const quiet = (): Promise<boolean> => importSettled(deployment, importDoneAt);
      // Until the import is indexed and its re-cluster has run (it starts ~5 s after the queue drains).
      const load = await searchLoad(access, { mode: 'fast', queries: ctx.queries, connections: 16, durationS: Math.max(ctx.durationS, 15), until: quiet, maxDurationS: ctx.maxDuringS });
      const finished = await quiet().catch(() => false);
      const healthz = await health.stop();
      result.duringImport = { items: spec.extra.count, finished, importSeconds: Math.round((importSeconds || (performance.now() - t0) / 1000) * 10) / 10, load, healthz };
      // An unfinished import is left to the server, which stops next.
      if (finished) await importing;
      else void importing.catch(() => undefined);
    }, memory);
    result.memory = { ...result.memory!, peakBytes: memory.peak(), peakPhase: memory.peakLabel() };
    const atPeak = memory.peakParts();
    if (atPeak) result.memoryParts = { ...result.memoryParts!, atPeak: atPeak.parts, atPeakBytes: atPeak.bytes };
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
    ctx.log(`run failed: ${result.error}`);
  } finally {
    memory.stop();
    await deployment.stop();
    await ctx.checkpoint(result);
  }
  return result;
}
