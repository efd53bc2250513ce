import { mkdir } from 'node:fs/promises';
import type { EmbeddingProvider } from '@engram/indexer/embeddings';
import { createCoalescingEmbedder, createOfflineEmbedder, createOpenAIEmbedder, withEmbeddingCache } from '@engram/indexer/embeddings';
import { openQueue, type JobQueue } from '@engram/queue';
import {
  createEmbeddingCacheStore,
  createSecretBox,
  migrate,
  openDatabase,
  openSearchReadModel,
  openVectorStore,
  pingDatabase,
  setBackgroundNice,
  type Db,
  type SearchReadModel,
  type SecretBox,
  type VectorStore,
} from '@engram/stores';
import type { Reranker } from '@engram/search';
import type { Config } from './config.js';
import { setHeapGrowth, workersAtYoungGeneration } from './process.js';
import { createRankers } from './rankers.js';
import type { Logger } from './logger.js';
import { bootstrapAdminToken, loadSecretKey } from './secrets.js';

/** Every long-lived client a process holds, opened in dependency order and closed in reverse. */
export interface Runtime {
  config: Config;
  logger: Logger;
  db: Db;
  vectors: VectorStore;
  queue: JobQueue;
  /** For indexing: misses from concurrent index jobs share model batches. */
  embedder: EmbeddingProvider;
  /**
   * For search: the same model and cache, without waiting for company (a query is embedded alone, and the
   * batching wait was half its embedding time). Closed with `embedder`.
   */
  queryEmbedder: Pick<EmbeddingProvider, 'model' | 'dimensions' | 'embed'>;
  secretBox: SecretBox;
  /** Second stages of search: `balanced` (learned or hosted reranker) and `thorough` (LLM, when configured). */
  rankers: { reranker?: Reranker; llm?: Reranker };
  admin: { token: string | null; created: boolean; verify: (token: string) => boolean };
  /**
   * The process's one search read model, opened on first use: in memory on the embedded default (it
   * follows the items' change feed), SQL on a Postgres server. Search reads it, and so do the re-cluster
   * and expertise jobs (items' entity mentions, the workspace's item count), so on the embedded default
   * the database serves none of those reads.
   */
  searchRead(): SearchReadModel & { loaded(): Promise<boolean> };
  /** The embedding model differs from the stored vectors' model: items must be re-embedded. */
  modelChanged: boolean;
  /** True once stores are reachable and migrations applied; false from the start of shutdown. */
  ready(): Promise<boolean>;
  /** Marks the process not ready (readiness fails first during shutdown). */
  markDraining(): void;
  close(): Promise<void>;
}

export async function createRuntime(config: Config, logger: Logger, overrides: { embedder?: EmbeddingProvider } = {}): Promise<Runtime> {
  await mkdir(config.dataDir, { recursive: true });
  setBackgroundNice(config.backgroundNice);
  setHeapGrowth(config.heapGrowthPercent);
  workersAtYoungGeneration(config.workerSemiSpaceMb);
  const db = await openDatabase(config.databaseUrl, { pgliteThread: config.pgliteThread, logSlowMs: config.pgliteLogSlowMs, pgliteSharedBuffersMb: config.pgliteSharedBuffersMb });
  const applied = await migrate(db);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  const vectors = await openVectorStore(config.vectorUrl, {
    sharedDb: db,
    sharedUrl: config.databaseUrl,
    openDatabase,
    qdrantApiKey: config.qdrantApiKey,
    pgvector: { memoryIndex: config.searchIndex === 'memory', ...(config.searchMaxStalenessMs ? { maxStalenessMs: config.searchMaxStalenessMs } : {}) },
  });
  const baseEmbedder =
    overrides.embedder ??
    (config.embedding.provider === 'openai'
      ? createOpenAIEmbedder({ apiKey: config.embedding.apiKey, baseURL: config.embedding.baseURL, model: config.embedding.model, dimensions: config.embedding.dimensions })
      : await createOfflineEmbedder({ threads: config.embedding.threads }));
  // Cache hits never reach the model; misses from concurrent index jobs share batches.
  const cacheStore = createEmbeddingCacheStore(db);
  const embedder = withEmbeddingCache(createCoalescingEmbedder(baseEmbedder), cacheStore);
  const queryEmbedder = withEmbeddingCache(baseEmbedder, cacheStore, { writeBehind: true });
  const collection = await vectors.ensureCollection({ model: embedder.model, dimensions: embedder.dimensions });
  if (collection.modelChanged) logger.warn({ previous: collection.previous, model: embedder.model }, 'embedding model changed: every item will be re-embedded');
  const queue = await openQueue(config.redisUrl, {
    prefix: config.queuePrefix,
    lockDurationMs: config.queueLockMs,
    observer: {
      onJob: (e) => {
        const line = { job: e.name, jobId: e.jobId, attempt: e.attempt, ms: Math.round(e.ms), outcome: e.outcome, error: e.error };
        if (e.outcome === 'failed') logger.error(line, 'job failed');
        else if (e.outcome === 'retry') logger.warn(line, 'job will retry');
        else if (e.outcome === 'stopped') logger.info(line, 'job stopped: shutting down');
        else logger.debug(line, 'job completed');
      },
      onError: (e) => logger.error({ job: e.name, jobId: e.jobId, kind: e.kind, err: e.error }, 'queue error'),
    },
  });
  const secretBox = createSecretBox(await loadSecretKey({ dataDir: config.dataDir, fromEnv: config.secretKey, fromFile: config.secretKeyFile }));
  const admin = await bootstrapAdminToken(db, { dataDir: config.dataDir, fromEnv: config.adminToken });
  let draining = false;
  let searchRead: (SearchReadModel & { loaded(): Promise<boolean> }) | null = null;

  return {
    config,
    logger,
    db,
    vectors,
    queue,
    embedder,
    queryEmbedder,
    secretBox,
    rankers: createRankers(config),
    admin,
    modelChanged: collection.modelChanged,
    searchRead: () => (searchRead ??= openSearchReadModel(db, { memory: config.searchIndex === 'memory', ...(config.searchMaxStalenessMs ? { maxStalenessMs: config.searchMaxStalenessMs } : {}) })),
    async ready() {
      if (draining) return false;
      const ok = await pingDatabase(db);
      return ok && (await vectors.healthy());
    },
    markDraining() {
      draining = true;
    },
    async close() {
      draining = true;
      await queue.close(config.shutdownTimeoutMs).catch((err: unknown) => logger.error({ err }, 'queue close failed'));
      await embedder.close().catch((err: unknown) => logger.error({ err }, 'embedder close failed'));
      await searchRead?.close().catch((err: unknown) => logger.error({ err }, 'search read model close failed'));
      await vectors.close().catch((err: unknown) => logger.error({ err }, 'vector store close failed'));
      await db.close().catch((err: unknown) => logger.error({ err }, 'database close failed'));
    },
  };
}
