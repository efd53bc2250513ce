/**
 * Search load against the real HTTP server: autocannon drives `connections` concurrent clients over
 * real release-note queries for a duration (or until told to stop); every response's client-side time
 * and the server's own `latency.total` are kept, so percentiles are exact, not autocannon's buckets.
 */
import autocannon, { type AutocannonResult } from 'autocannon';

export interface Access {
  url: string;
  workspaceId: string;
  key: string;
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

export interface LoadResult {
  mode: string;
  connections: number;
  durationS: number;
  requests: number;
  requestsPerS: number;
  errors: number;
  non2xx: number;
  timeouts: number;
  client: Percentiles;
  server: Percentiles;
  /** The server's own split of `latency.total`: waiting for the search gate, retrieval (first stage and fuse), enrichment. */
  stages: Record<(typeof STAGES)[number], Percentiles>;
  /** Each retrieval path's own time (they run side by side inside `retrieval`), and the query's embedding. */
  paths?: Record<(typeof PATH_TIMES)[number], Percentiles>;
}

const STAGES = ['queue', 'retrieval', 'rerank', 'enrich'] as const;
/** The response's `latency` keys of the paths: `search` is the lexical path. */
export const PATH_TIMES = ['embedding', 'search', 'vectorSearch', 'entitySearch', 'clusterSearch', 'actorSearch'] as const;

/** Nearest-rank percentiles of a sample, rounded to 0.1 ms. */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: NaN, p95: NaN, p99: NaN, mean: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: Math.round((sorted.reduce((a, b) => a + b, 0) / sorted.length) * 10) / 10 };
}

/** The command-line options of a benchmark run against a running Engram (`parseArgs`), and its queries' dataset. */
export const RUNNING_ENGRAM_OPTIONS = {
  url: { type: 'string', default: 'http://127.0.0.1:3000' },
  workspace: { type: 'string' },
  key: { type: 'string' },
  mode: { type: 'string', default: 'fast' },
  data: { type: 'string', default: '../shared/data/github-prettier' },
} as const;

const headersOf = (access: Access) => ({ 'content-type': 'application/json', authorization: `Bearer ${access.key}`, 'x-workspace-id': access.workspaceId });

/** A few searches per mode first, so the measured part does not include first-use costs. */
export async function warmUp(access: Access, mode: string, queries: string[], n = 5): Promise<void> {
  for (const query of queries.slice(0, n)) {
    await fetch(`${access.url}/v1/search`, { method: 'POST', headers: headersOf(access), body: JSON.stringify({ query, mode, limit: 10 }) });
  }
}

export async function searchLoad(
  access: Access,
  options: { mode: string; queries: string[]; connections: number; durationS: number; until?: () => Promise<boolean>; maxDurationS?: number },
): Promise<LoadResult> {
  const { mode, queries, connections } = options;
  const client: number[] = [];
  const server: number[] = [];
  const stages = Object.fromEntries(STAGES.map((s) => [s, [] as number[]])) as Record<(typeof STAGES)[number], number[]>;
  const paths = Object.fromEntries(PATH_TIMES.map((s) => [s, [] as number[]])) as Record<(typeof PATH_TIMES)[number], number[]>;
  let next = 0;
  const started = performance.now();
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: access.url,
        connections,
        duration: options.until ? (options.maxDurationS ?? 3600) : options.durationS,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: '/v1/search',
            headers: headersOf(access),
            setupRequest: (request) => ({ ...request, body: JSON.stringify({ query: queries[next++ % queries.length], mode, limit: 10 }) }),
            onResponse: (status, body) => {
              if (status !== 200) return;
              const latency = (JSON.parse(body) as { latency?: Record<string, number> }).latency ?? {};
              if (typeof latency.total === 'number') server.push(latency.total);
              for (const s of STAGES) if (typeof latency[s] === 'number') stages[s].push(latency[s]);
              for (const s of PATH_TIMES) if (typeof latency[s] === 'number') paths[s].push(latency[s]);
            },
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => client.push(responseTime));
    if (options.until) {
      const until = options.until;
      const watch = async (): Promise<void> => {
        // At least `durationS`, then until the condition holds.
        while (performance.now() - started < options.durationS * 1000 || !(await until().catch(() => false))) {
          if (performance.now() - started > (options.maxDurationS ?? 3600) * 1000) break;
          await new Promise((r) => setTimeout(r, 1_000));
        }
        instance.stop();
      };
      void watch();
    }
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    mode,
    connections,
    durationS: Math.round(seconds * 10) / 10,
    requests: client.length,
    requestsPerS: Math.round((client.length / seconds) * 10) / 10,
    errors: result.errors,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
    client: percentiles(client),
    server: percentiles(server),
    stages: Object.fromEntries(STAGES.map((s) => [s, percentiles(stages[s])])) as LoadResult['stages'],
    paths: Object.fromEntries(PATH_TIMES.map((s) => [s, percentiles(paths[s])])) as NonNullable<LoadResult['paths']>,
  };
}

/**
 * Whether an import that ended at `importDoneAt` (performance.now(); 0 while it runs) has been indexed
 * and its re-cluster has run: the drain's re-cluster is enqueued with a 5 s delay by the last indexing
 * job, so this looks 8 s after the import's end.
 */
export async function importSettled(engram: { url: string; adminToken: string }, importDoneAt: number): Promise<boolean> {
  if (!importDoneAt || performance.now() - importDoneAt < 8_000) return false;
  const response = await fetch(`${engram.url}/admin/status`, { headers: { authorization: `Bearer ${engram.adminToken}` } });
  const status = (await response.json()) as { queues?: Record<string, { waiting: number; active: number; delayed: number }> };
  const q = status.queues?.['cluster.recluster'];
  const indexing = status.queues?.['index.event'];
  return Boolean(q && indexing && q.waiting + q.active + q.delayed + indexing.waiting + indexing.active === 0);
}

/** Polls `/healthz` every `everyMs` until stopped: response times and how many took over 1 s or failed. */
export function healthSampler(url: string, everyMs = 250): { stop(): Promise<{ samples: number; p50: number; p99: number; max: number; over1s: number; failed: number }> } {
  const times: number[] = [];
  let failed = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) }).then((r) => r.ok, () => false);
      const ms = performance.now() - t0;
      if (ok) times.push(ms);
      else failed++;
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - ms)));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const p = percentiles(times);
      return { samples: times.length + failed, p50: p.p50, p99: p.p99, max: Math.round(Math.max(0, ...times) * 10) / 10, over1s: times.filter((t) => t > 1000).length, failed };
    },
  };
}

/**
 * `meta.total` with and without `filters.observationTypes: ["commit"]` for each query: a filter must
 * never raise it. Returns the queries where it did.
 */
export async function filteredTotals(access: Access, queries: string[]): Promise<{ checked: number; raised: { query: string; unfiltered: number; filtered: number }[] }> {
  const total = async (body: unknown): Promise<number> => {
    const response = await fetch(`${access.url}/v1/search`, { method: 'POST', headers: headersOf(access), body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`search answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { meta: { total: number } }).meta.total;
  };
  const raised: { query: string; unfiltered: number; filtered: number }[] = [];
  for (const query of queries) {
    const unfiltered = await total({ query, mode: 'fast', limit: 10 });
    const filtered = await total({ query, mode: 'fast', limit: 10, filters: { observationTypes: ['commit'] } });
    if (filtered > unfiltered) raised.push({ query, unfiltered, filtered });
  }
  return { checked: queries.length, raised };
}
