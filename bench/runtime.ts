/**
 * A runtime over an existing Engram data dir for benchmarks that only run the first stage (tuning,
 * training, ablation). The bundled reranker model may be of an older feature version than the code
 * (the runtime refuses to load such a model, rightly, in a server), so the runtime is pointed at a
 * hosted reranker it never calls instead.
 */
import { createLogger, createRuntime, loadConfig, type Runtime } from '@engram/runtime';

const UNUSED_RERANKER = 'http://127.0.0.1:9/rerank';

export function openFirstStageRuntime(dataDir: string, name: string, env: Record<string, string | undefined> = {}): Promise<Runtime> {
  const config = loadConfig({ ...env, ENGRAM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', RERANK_URL: UNUSED_RERANKER });
  return createRuntime(config, createLogger({ level: 'warn', name }));
}
