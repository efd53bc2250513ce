/**
 * A runtime over an existing Engram data dir for benchmarks that only run the first stage (tuning,
 * training, ablation). The bundled reranker model may be of an older feature version than the code
 * (the runtime refuses to load such a model, rightly, in a server), so the runtime is pointed at a
 * hosted reranker it never calls instead.
 */
import { join } from 'node:path';
import { createLogger, createRuntime, loadConfig, workersAtYoungGeneration, type Runtime } from '@engram/runtime';
import { createPgVectorStore, openDatabase, type Db, type PgVectorStore } from '@engram/stores';

const UNUSED_RERANKER = 'http://127.0.0.1:9/rerank';

export function openFirstStageRuntime(dataDir: string, name: string, env: Record<string, string | undefined> = {}): Promise<Runtime> {
  const config = loadConfig({ ...env, ENGRAM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', RERANK_URL: UNUSED_RERANKER });
  return createRuntime(config, createLogger({ level: 'warn', name }));
}

/**
 * An Engram data dir's database, its first workspace and its active vector collection, opened directly (no
 * runtime, no jobs): for benchmarks that run one indexer step on a kept index. Work on a copy.
 */
export async function openKeptIndex(dataDir: string): Promise<{ db: Db; workspaceId: string; store: PgVectorStore; model: string; dimensions: number }> {
  // Worker threads (the database's, a re-cluster's) with the young generation they have in the server.
  workersAtYoungGeneration(loadConfig({ ENGRAM_DATA_DIR: dataDir, ENGRAM_WORKER_SEMI_SPACE_MB: process.env.ENGRAM_WORKER_SEMI_SPACE_MB }).workerSemiSpaceMb);
  const db = await openDatabase(`pglite://${join(dataDir, 'db')}`);
  const workspaceId = (await db.query<{ id: string }>('SELECT id FROM workspaces ORDER BY created_at LIMIT 1')).rows[0]!.id;
  const active = (await db.query<{ model: string; dimensions: number }>('SELECT model, dimensions FROM vector_collections WHERE active')).rows[0]!;
  const store = await createPgVectorStore(db);
  await store.ensureCollection({ model: active.model, dimensions: active.dimensions });
  return { db, workspaceId, store, model: active.model, dimensions: active.dimensions };
}
