import { resolve } from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const intMs = z.coerce.number().int().min(1_000);

/**
 * The environment, parsed once at start. Every variable is documented in the README's configuration
 * table; cross-field rules live here and are unit-tested.
 */
export const EnvSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('0.0.0.0'),
    ENGRAM_DATA_DIR: z.string().default('./.data'),
    DATABASE_URL: z.string().optional(),
    VECTOR_URL: z.string().optional(),
    REDIS_URL: z.string().optional(),
    QDRANT_API_KEY: z.string().optional(),
    ENGRAM_ADMIN_TOKEN: z.string().min(16, 'ENGRAM_ADMIN_TOKEN must be at least 16 characters').optional(),
    ENGRAM_SECRET_KEY: z.string().min(16, 'ENGRAM_SECRET_KEY must be at least 16 characters').optional(),
    ENGRAM_QUEUE_PREFIX: z.string().default('engram'),
    /** BullMQ: a dead worker's jobs are taken again after this long (their lock, renewed every half of it by a live worker). */
    QUEUE_LOCK_MS: z.coerce.number().int().min(1_000).default(30_000),
    /** Staged events still pending this long are enqueued again (their job was lost: a crash or a queue down between staging and enqueueing); 0 = off. */
    PENDING_SWEEP_MS: z.coerce.number().int().min(0).default(60_000),
    /** Embeddings: `offline` (bundled sentence encoder) or `openai` (any OpenAI-compatible endpoint). */
    EMBEDDING_PROVIDER: z.enum(['offline', 'openai']).default('offline'),
    EMBEDDING_BASE_URL: z.string().url().optional(),
    EMBEDDING_API_KEY: z.string().optional(),
    EMBEDDING_MODEL: z.string().default('text-embedding-3-small'),
    EMBEDDING_DIMENSIONS: z.coerce.number().int().positive().optional(),
    EMBEDDING_THREADS: z.coerce.number().int().min(1).max(16).optional(),
    /** LLM for `thorough` search and cluster summaries (OpenAI-compatible). Unset: `thorough` answers as `balanced`. */
    LLM_BASE_URL: z.string().url().optional(),
    LLM_API_KEY: z.string().optional(),
    LLM_MODEL: z.string().default('gpt-4o-mini'),
    LLM_TIMEOUT_MS: z.coerce.number().int().min(100).default(4_000),
    /** Hosted cross-encoder (Cohere-compatible `/rerank`: Cohere, TEI, Jina, Voyage). Unset: the bundled learned reranker. */
    RERANK_URL: z.string().url().optional(),
    RERANK_API_KEY: z.string().optional(),
    RERANK_MODEL: z.string().default('rerank-english-v3.0'),
    SYNC_INTERVAL_MS: intMs.default(5 * 60_000),
    RECLUSTER_INTERVAL_MS: intMs.default(30 * 60_000),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(25_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ENGRAM_ROLE: z.enum(['all', 'api', 'worker']).optional(),
    ENGRAM_WEBHOOKS: bool.default(true),
    /**
     * PGlite (the embedded database) in a worker thread of its own, off the event loop that answers HTTP
     * (docs/architecture.md, "Threads"); `false` runs it on the event loop, as before.
     */
    PGLITE_THREAD: bool.default(true),
    /** Embedded default, PGlite thread: log statements and transactions slower than this many ms to stderr (0: off). */
    PGLITE_LOG_SLOW_MS: z.coerce.number().min(0).default(0),
    /** Embedded default: the database's buffer cache in MB (PostgreSQL's `shared_buffers`), held in its WebAssembly heap. */
    PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(16_384).default(128),
    /** Linux: the nice value of background threads (re-cluster plan, area model) from 0 (as the process) to 19. */
    ENGRAM_BACKGROUND_NICE: z.coerce.number().int().min(0).max(19).default(10),
    ENGRAM_HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(300).default(50),
    /** V8's semi-space size (MB) of the process's worker threads (database, scans, lexical scoring, re-clusters); 0 = V8's own. */
    ENGRAM_WORKER_SEMI_SPACE_MB: z.coerce.number().int().min(0).max(1024).default(8),
    /**
     * Where searches read from: `memory` (an index held in this process, following the database's change
     * feed) or `sql` (the database's own indexes, on every search). Default: memory, except in a worker
     * process, which does not search.
     */
    SEARCH_INDEX: z.enum(['memory', 'sql']).optional(),
    /** While writes come faster than the search index catches up, a search waits at most this long for it; 0 = always wait. */
    SEARCH_MAX_STALENESS_MS: z.coerce.number().int().min(0).default(25),
    /** Embedded default: how many ms of writes a search's context snapshots (clusters, people) may miss while writes go on; 0 = none. */
    SEARCH_CONTEXT_STALENESS_MS: z.coerce.number().int().min(0).default(1000),
    /** Searches in progress at once, the rest waiting in order (0: no limit). Default: 4 on the embedded default, no limit on a Postgres server. */
    SEARCH_CONCURRENCY: z.coerce.number().int().min(0).optional(),
    /** A file holding the secret key (outside the data dir, e.g. a mounted secret); ENGRAM_SECRET_KEY wins. */
    ENGRAM_SECRET_KEY_FILE: z.string().optional(),
    /** HTTP limits (see the README's configuration table). */
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(30_000),
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(10_000),
    HTTP_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
    API_MAX_BODY_BYTES: z.coerce.number().int().min(1_024).default(1_000_000),
    WEBHOOK_MAX_BYTES: z.coerce.number().int().min(1_024).default(5_000_000),
    ADMIN_MAX_BODY_BYTES: z.coerce.number().int().min(1_024).default(200_000_000),
    /** Requests per second per API key (a token bucket refilled each second); 0 turns the limit off. */
    RATE_LIMIT_KEY_PER_SECOND: z.coerce.number().int().min(0).default(1_000),
    /** Requests in flight at once per API key; 0 turns the cap off. */
    RATE_LIMIT_KEY_CONCURRENCY: z.coerce.number().int().min(0).default(64),
    /** Unauthenticated requests (webhooks, no or bad credentials) per second per client IP; 0 turns it off. */
    RATE_LIMIT_IP_PER_SECOND: z.coerce.number().int().min(0).default(200),
    /** Deadline of one proxied provider call, and the most bytes of its response that are read. */
    PROXY_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
    PROXY_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1_024).default(5_000_000),
    /** Deadline of one `/v1`, `/mcp` or webhook request: past it the answer is 503 UNAVAILABLE; 0 turns it off. */
    API_REQUEST_DEADLINE_MS: z.coerce.number().int().min(0).default(30_000),
    /** Deadline of one HTTP attempt of a sync to the provider (GitHub); a hung attempt is retried. */
    PROVIDER_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  })
  .superRefine((env, ctx) => {
    if (env.EMBEDDING_PROVIDER === 'openai' && !env.EMBEDDING_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['EMBEDDING_API_KEY'], message: 'EMBEDDING_PROVIDER=openai needs EMBEDDING_API_KEY (any non-empty value for keyless local servers)' });
    }
    if (env.LLM_BASE_URL && !env.LLM_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['LLM_API_KEY'], message: 'LLM_BASE_URL is set: LLM_API_KEY is required too' });
    }
    const distributed = Boolean(env.DATABASE_URL?.startsWith('postgres'));
    if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS' });
    }
    if (distributed && !env.ENGRAM_SECRET_KEY && !env.ENGRAM_SECRET_KEY_FILE) {
      ctx.addIssue({
        code: 'custom',
        path: ['ENGRAM_SECRET_KEY'],
        message: 'with a server DATABASE_URL every api and worker process must share ENGRAM_SECRET_KEY or ENGRAM_SECRET_KEY_FILE (it encrypts provider tokens)',
      });
    }
    const role = env.ENGRAM_ROLE ?? (env.REDIS_URL ? 'api' : 'all');
    const embeddedVectors = env.VECTOR_URL ? env.VECTOR_URL.startsWith('pglite://') : !env.DATABASE_URL || env.DATABASE_URL.startsWith('pglite://');
    if (embeddedVectors && role !== 'all') {
      ctx.addIssue({
        code: 'custom',
        path: ['VECTOR_URL'],
        message: 'an embedded pglite:// store is owned by one process: separate api and worker processes need postgres:// or qdrant:// stores (or ENGRAM_ROLE=all)',
      });
    }
    if (env.ENGRAM_ROLE === 'worker' && !env.REDIS_URL) {
      ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'a separate worker process needs REDIS_URL (the in-process queue lives inside the api)' });
    }
  });

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  vectorUrl: string;
  redisUrl: string | undefined;
  qdrantApiKey: string | undefined;
  adminToken: string | undefined;
  secretKey: string | undefined;
  queuePrefix: string;
  queueLockMs: number;
  pendingSweepMs: number;
  role: 'all' | 'api' | 'worker';
  /** `SEARCH_INDEX`: where searches read from. */
  searchIndex: 'memory' | 'sql';
  embedding:
    | { provider: 'offline'; threads: number | undefined }
    | { provider: 'openai'; baseURL: string | undefined; apiKey: string; model: string; dimensions: number | undefined };
  llm: { baseURL: string; apiKey: string; model: string; timeoutMs: number } | undefined;
  rerank: { url: string; apiKey: string | undefined; model: string } | undefined;
  syncIntervalMs: number;
  reclusterIntervalMs: number;
  shutdownTimeoutMs: number;
  logLevel: string;
  webhooks: boolean;
  pgliteThread: boolean;
  pgliteLogSlowMs: number;
  pgliteSharedBuffersMb: number;
  /** Nice value of background threads (Linux). */
  backgroundNice: number;
  /** How far V8 lets a heap grow past what its last full collection kept, in percent; 0: V8's own (up to 300). */
  heapGrowthPercent: number;
  workerSemiSpaceMb: number;
  searchMaxStalenessMs: number;
  /** Searches in progress at once (0: no limit); unset: the search service's default for the database. */
  searchConcurrency?: number;
  searchContextStalenessMs: number;
  /** Where the secret key came from when not from ENGRAM_SECRET_KEY. */
  secretKeyFile: string | undefined;
  http: {
    requestTimeoutMs: number;
    headersTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxBodyBytes: number;
    webhookMaxBytes: number;
    adminMaxBodyBytes: number;
    requestDeadlineMs: number;
  };
  rateLimits: { keyPerSecond: number; keyConcurrency: number; ipPerSecond: number };
  proxy: { timeoutMs: number; maxResponseBytes: number };
  providerRequestTimeoutMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.ENGRAM_DATA_DIR);
  const databaseUrl = e.DATABASE_URL ?? `pglite://${resolve(dataDir, 'db')}`;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl,
    vectorUrl: e.VECTOR_URL ?? databaseUrl,
    redisUrl: e.REDIS_URL,
    qdrantApiKey: e.QDRANT_API_KEY,
    adminToken: e.ENGRAM_ADMIN_TOKEN,
    secretKey: e.ENGRAM_SECRET_KEY,
    queuePrefix: e.ENGRAM_QUEUE_PREFIX,
    queueLockMs: e.QUEUE_LOCK_MS,
    pendingSweepMs: e.PENDING_SWEEP_MS,
    role: e.ENGRAM_ROLE ?? (e.REDIS_URL ? 'api' : 'all'),
    searchIndex: e.SEARCH_INDEX ?? (e.ENGRAM_ROLE === 'worker' ? 'sql' : 'memory'),
    embedding:
      e.EMBEDDING_PROVIDER === 'openai'
        ? { provider: 'openai', baseURL: e.EMBEDDING_BASE_URL, apiKey: e.EMBEDDING_API_KEY!, model: e.EMBEDDING_MODEL, dimensions: e.EMBEDDING_DIMENSIONS }
        : { provider: 'offline', threads: e.EMBEDDING_THREADS },
    llm: e.LLM_BASE_URL && e.LLM_API_KEY ? { baseURL: e.LLM_BASE_URL, apiKey: e.LLM_API_KEY, model: e.LLM_MODEL, timeoutMs: e.LLM_TIMEOUT_MS } : undefined,
    rerank: e.RERANK_URL ? { url: e.RERANK_URL, apiKey: e.RERANK_API_KEY, model: e.RERANK_MODEL } : undefined,
    syncIntervalMs: e.SYNC_INTERVAL_MS,
    reclusterIntervalMs: e.RECLUSTER_INTERVAL_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    webhooks: e.ENGRAM_WEBHOOKS,
    pgliteThread: e.PGLITE_THREAD,
    pgliteLogSlowMs: e.PGLITE_LOG_SLOW_MS,
    pgliteSharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB,
    backgroundNice: e.ENGRAM_BACKGROUND_NICE,
    heapGrowthPercent: e.ENGRAM_HEAP_GROWTH_PERCENT,
    workerSemiSpaceMb: e.ENGRAM_WORKER_SEMI_SPACE_MB,
    searchMaxStalenessMs: e.SEARCH_MAX_STALENESS_MS,
    ...(e.SEARCH_CONCURRENCY !== undefined ? { searchConcurrency: e.SEARCH_CONCURRENCY } : {}),
    searchContextStalenessMs: e.SEARCH_CONTEXT_STALENESS_MS,
    secretKeyFile: e.ENGRAM_SECRET_KEY_FILE ? resolve(e.ENGRAM_SECRET_KEY_FILE) : undefined,
    http: {
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEPALIVE_TIMEOUT_MS,
      maxBodyBytes: e.API_MAX_BODY_BYTES,
      webhookMaxBytes: e.WEBHOOK_MAX_BYTES,
      adminMaxBodyBytes: e.ADMIN_MAX_BODY_BYTES,
      requestDeadlineMs: e.API_REQUEST_DEADLINE_MS,
    },
    rateLimits: { keyPerSecond: e.RATE_LIMIT_KEY_PER_SECOND, keyConcurrency: e.RATE_LIMIT_KEY_CONCURRENCY, ipPerSecond: e.RATE_LIMIT_IP_PER_SECOND },
    proxy: { timeoutMs: e.PROXY_TIMEOUT_MS, maxResponseBytes: e.PROXY_MAX_RESPONSE_BYTES },
    providerRequestTimeoutMs: e.PROVIDER_REQUEST_TIMEOUT_MS,
  };
}
