import type { Db } from '../db.js';
import { createPgVectorStore, type PgVectorOptions } from './pgvector.js';
import { createQdrantVectorStore } from './qdrant.js';
import type { VectorStore } from './types.js';

export * from './types.js';
export { createPgVectorStore, MEMORY_INDEX_MAX_CHUNKS, type PgVectorOptions, type PgVectorStore } from './pgvector.js';
export { createQdrantVectorStore } from './qdrant.js';
export { createMemoryIndex, sharedFloats, topInnerProducts, topInnerProductsBatchOffThread, topInnerProductsOffThread, type MemoryIndex } from './memoryIndex.js';
export { CopyBinaryRows, float4Bytes, float4Hex, fromFloat4Hex } from './binary.js';

/**
 * Opens the vector store named by VECTOR_URL. `sharedDb` is the system-of-record handle: when the URL
 * names the same database (the embedded default), the same handle is reused (PGlite is single-owner).
 */
export async function openVectorStore(
  url: string,
  deps: { sharedDb: Db; sharedUrl: string; openDatabase: (url: string) => Promise<Db>; qdrantApiKey?: string; pgvector?: PgVectorOptions },
): Promise<VectorStore> {
  if (url.startsWith('qdrant://') || url.startsWith('qdrants://')) return createQdrantVectorStore(url, { apiKey: deps.qdrantApiKey });
  if (url === deps.sharedUrl) return createPgVectorStore(deps.sharedDb, deps.pgvector);
  return createPgVectorStore(await deps.openDatabase(url), { ...deps.pgvector, ownsDb: true });
}
