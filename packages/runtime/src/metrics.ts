/**
 * Prometheus metrics (prom-client), one registry per runtime, shared by the api and the worker. Request
 * and search timings are recorded as the api answers; embedding calls and job outcomes are counted in the
 * process that makes them (the worker's through its own `/metrics`). Queue depths and sync lag are read
 * from the stores when Prometheus scrapes, so they describe the whole deployment: only the api exposes
 * them (`deployment: true`), or a sum over processes would count them twice.
 */
import client from 'prom-client';
import type { JobEvent } from '@engram/queue';
import { listConnections, listSyncCursors, threadMemory } from '@engram/stores';
import type { Runtime } from './runtime.js';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Bounds the `stage` label: the engine's path names are a small fixed set, but a bug must not explode it. */
const MAX_STAGES = 40;

export interface Metrics {
  registry: client.Registry;
  observeRequest(labels: { operation: string; mode: string; status: number }, seconds: number): void;
  /** A search response's `latency` (ms per stage), labelled by the mode that ran. */
  observeSearchLatency(mode: string, latency: Record<string, number>): void;
  observeEmbedding(use: 'index' | 'query', texts: number, seconds: number, failed: boolean): void;
  /** For a queue observer (`onJob`): per-process job outcomes and durations. */
  observeJob(event: JobEvent): void;
}

export interface MetricsOptions {
  /** The `service` label on every series. */
  service: 'engram-api' | 'engram-worker';
  /** Also expose the deployment-wide gauges read from the stores (queue depths, sync lag). */
  deployment: boolean;
}

export function createMetrics(runtime: Runtime, options: MetricsOptions): Metrics {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service: options.service });
  client.collectDefaultMetrics({ register: registry, prefix: 'engram_process_' });

  const requests = new client.Histogram({
    name: 'engram_request_duration_seconds',
    help: 'HTTP request latency by operation (search, contents, findsimilar, related, proxy_search, proxy_call, mcp, admin, ...), search mode and status code.',
    labelNames: ['operation', 'mode', 'status'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const stages = new client.Histogram({
    name: 'engram_search_stage_duration_seconds',
    help: "Search time per stage, from the response's latency fields: retrieval, rerank, enrich, auth, parse and each retrieval path (bm25, vector, ...), by the mode that ran.",
    labelNames: ['mode', 'stage'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const embeddingCalls = new client.Counter({ name: 'engram_embedding_calls_total', help: 'Calls to the embedding layer (cache hits included), by use: index (indexer) or query (search).', labelNames: ['use'] as const, registers: [registry] });
  const embeddingTexts = new client.Counter({ name: 'engram_embedding_texts_total', help: 'Texts sent to the embedding layer, by use.', labelNames: ['use'] as const, registers: [registry] });
  const embeddingErrors = new client.Counter({ name: 'engram_embedding_errors_total', help: 'Embedding calls that failed, by use.', labelNames: ['use'] as const, registers: [registry] });
  const embeddingSeconds = new client.Histogram({ name: 'engram_embedding_duration_seconds', help: 'Embedding call latency, by use.', labelNames: ['use'] as const, buckets: SECONDS, registers: [registry] });
  const jobs = new client.Counter({ name: 'engram_jobs_total', help: 'Jobs run by this process, by queue and outcome (completed, retry, failed, stopped).', labelNames: ['queue', 'outcome'] as const, registers: [registry] });
  const jobSeconds = new client.Histogram({ name: 'engram_job_duration_seconds', help: 'Job run time in this process, by queue.', labelNames: ['queue'] as const, buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300], registers: [registry] });

  if (options.deployment) {
    new client.Gauge({
      name: 'engram_queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, failed, completed), as the queue reports them: BullMQ counts across every worker; completed and failed are the jobs it still retains.',
      labelNames: ['queue', 'state'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const depths = await runtime.queue.depths();
        for (const [queue, d] of Object.entries(depths)) for (const [state, n] of Object.entries(d)) this.set({ queue, state }, n);
      },
    });
    new client.Gauge({
      name: 'engram_sync_lag_seconds',
      help: 'Per connection: seconds since its stalest stream last finished a sync (since the connection was created, for a stream that never finished).',
      labelNames: ['connection', 'provider', 'workspace'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const now = Date.now();
        for (const c of await listConnections(runtime.db)) {
          const cursors = await listSyncCursors(runtime.db, c.id);
          const finished = cursors.length ? cursors.map((s) => Date.parse(s.completedAt ?? c.createdAt)) : [Date.parse(c.createdAt)];
          this.set({ connection: c.id, provider: c.provider, workspace: c.workspaceId }, Math.max((now - Math.min(...finished)) / 1000, 0));
        }
      },
    });
  }
  new client.Gauge({
    name: 'engram_ready',
    help: '1 when the stores are reachable and the process is not draining.',
    registers: [registry],
    async collect() {
      this.set((await runtime.ready()) ? 1 : 0);
    },
  });

  new client.Gauge({
    name: 'engram_thread_memory_bytes',
    help: "This process's worker threads by the module they run (pglite/worker, vector/scanWorker, embeddings/offlineWorker, ...): V8 heap used and total, buffers and typed arrays outside it (external), and WebAssembly memory (the embedded database's heap, which never shrinks). The main thread's heap is in engram_process_nodejs_heap_size_*.",
    labelNames: ['thread', 'kind'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const sums = new Map<string, { heap_used: number; heap_total: number; external: number; wasm: number }>();
      for (const t of await threadMemory()) {
        const sum = sums.get(t.thread) ?? { heap_used: 0, heap_total: 0, external: 0, wasm: 0 };
        sum.heap_used += t.heapUsedBytes;
        sum.heap_total += t.heapTotalBytes;
        sum.external += t.externalBytes;
        sum.wasm += t.wasmBytes;
        sums.set(t.thread, sum);
      }
      for (const [thread, sum] of sums) for (const [kind, bytes] of Object.entries(sum)) if (kind !== 'wasm' || bytes > 0) this.set({ thread, kind }, bytes);
    },
  });

  // Zero series up front, so `rate(engram_embedding_errors_total[5m])` has data before the first error.
  for (const use of ['index', 'query'] as const) for (const c of [embeddingCalls, embeddingTexts, embeddingErrors]) c.inc({ use }, 0);

  const seenStages = new Set<string>();
  return {
    registry,
    observeRequest: ({ operation, mode, status }, seconds) => requests.observe({ operation, mode, status: String(status) }, seconds),
    observeSearchLatency(mode, latency) {
      for (const [stage, ms] of Object.entries(latency)) {
        if (stage === 'total' || stage === 'maxParallel' || typeof ms !== 'number' || !Number.isFinite(ms)) continue;
        if (!seenStages.has(stage)) {
          if (seenStages.size >= MAX_STAGES || !/^[A-Za-z][A-Za-z0-9_]{0,40}$/.test(stage)) continue;
          seenStages.add(stage);
        }
        stages.observe({ mode, stage }, ms / 1000);
      }
    },
    observeEmbedding(use, texts, seconds, failed) {
      embeddingCalls.inc({ use });
      embeddingTexts.inc({ use }, texts);
      embeddingSeconds.observe({ use }, seconds);
      if (failed) embeddingErrors.inc({ use });
    },
    observeJob(event) {
      jobs.inc({ queue: event.name, outcome: event.outcome });
      jobSeconds.observe({ queue: event.name }, event.ms / 1000);
    },
  };
}

const byRuntime = new WeakMap<Runtime, Metrics>();

/**
 * The runtime's metrics, created on first use: its embedders are instrumented in place (so the indexer and
 * the search service, which already hold them, are counted) and its queue's job events observed.
 */
export function metricsFor(runtime: Runtime, options: MetricsOptions): Metrics {
  let metrics = byRuntime.get(runtime);
  if (!metrics) {
    metrics = createMetrics(runtime, options);
    byRuntime.set(runtime, metrics);
    instrumentEmbedder(runtime.embedder, 'index', metrics);
    instrumentEmbedder(runtime.queryEmbedder, 'query', metrics);
    const counted = metrics;
    runtime.queue.observe({ onJob: (event) => counted.observeJob(event) });
  }
  return metrics;
}

function instrumentEmbedder(embedder: Runtime['queryEmbedder'], use: 'index' | 'query', metrics: Metrics): void {
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (texts, opts) => {
    const started = performance.now();
    try {
      const out = await embed(texts, opts);
      metrics.observeEmbedding(use, texts.length, (performance.now() - started) / 1000, false);
      return out;
    } catch (err) {
      metrics.observeEmbedding(use, texts.length, (performance.now() - started) / 1000, true);
      throw err;
    }
  };
}
