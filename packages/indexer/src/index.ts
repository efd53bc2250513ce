export {
  createIndexer,
  DEFAULT_INDEX_BATCH_SIZE,
  INDEX_BATCHES_IN_FLIGHT,
  itemIdOf,
  type Indexer,
  type IndexerDeps,
  type IndexerLogger,
  type IndexOutcome,
  type IndexStatus,
  type SettledIndex,
} from './indexer.js';
export { embeddingChunks, embeddingHash, chunkId, CHUNK_CHARS, MAX_CHUNKS } from './embedding.js';
export { lexicalFields, LEXICAL_VERSION, MAX_BODY_TOKENS, relexIfStale, relexWorkspace } from './lexical.js';
export { makeSnippet, plainText, SNIPPET_LENGTH } from './snippet.js';
export { canonicalKey, identityKeys, itemRefs, type LinkRef } from './links/keys.js';
export { edgeTypeOf, type EdgeType } from './links/edgeTypes.js';
export { batchKeyFinder, deriveEdges, deriveEdgesWith, SHARED_KEY_LIMIT, TITLE_KEY_LIMIT, type KeyFinder, type LinkedItem } from './links/deriveEdges.js';
export { identitiesOf, isBotRef, normalizeName } from './actors/identity.js';
export { resolveActor, resolveActors } from './actors/resolve.js';
export * from './embeddings/index.js';
export * from './entities/index.js';
export * from './clusters/index.js';
export { refreshExpertise, EXPERTISE_DOMAINS, type ExpertiseEntry } from './actors/expertise.js';
export { rebuildAreaModel, type AreaModelSummary } from './areas/index.js';
