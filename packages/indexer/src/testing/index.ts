// Test helpers of the indexer package; never exported from the production barrel.
export { countingEmbedder, createHashEmbedder, type CountingEmbedder } from './hashEmbedder.js';
export { createMemoryEmbeddingCache, type MemoryEmbeddingCache } from './memoryEmbeddingCache.js';
export { stageAndIndex } from './stageAndIndex.js';
export { actorIdOf, insertFixtureItem, type FixtureItem } from './clusterFixtures.js';
export { hasPrettierData, PRETTIER_DATA, readJson, titleAndBody, toEntityInput, type Link, type RestItem } from './prettierCorpus.js';
