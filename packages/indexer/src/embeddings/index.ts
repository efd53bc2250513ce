export type { EmbedOptions, EmbeddingCache, EmbeddingProvider } from './types.js';
export {
  createOfflineEmbedder,
  DEFAULT_OFFLINE_BATCH_SIZE,
  DEFAULT_OFFLINE_MAX_CHARS,
  OFFLINE_MODEL,
  type OfflineEmbedderOptions,
} from './offline.js';
export { createOpenAIEmbedder, DEFAULT_OPENAI_BATCH_SIZE, type OpenAIEmbedderOptions } from './openai.js';
export { textHash, withEmbeddingCache } from './cache.js';
export { chunkText, type ChunkTextOptions } from './chunkText.js';
export { cosineSimilarity, normalizeVector } from './vectors.js';
export { createCoalescingEmbedder } from './coalesce.js';
