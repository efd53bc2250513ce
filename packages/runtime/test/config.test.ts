import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('runs on the embedded default with no configuration at all', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toMatch(/^pglite:\/\/.*\.data\/db$/);
    expect(config.vectorUrl).toBe(config.databaseUrl);
    expect(config.redisUrl).toBeUndefined();
    expect(config.role).toBe('all');
    expect(config.embedding.provider).toBe('offline');
    expect(config.llm).toBeUndefined();
  });

  it('honours ENGRAM_DATA_DIR and PORT', () => {
    const config = loadConfig({ ENGRAM_DATA_DIR: '/tmp/engram-x', PORT: '4123' });
    expect(config.databaseUrl).toBe('pglite:///tmp/engram-x/db');
    expect(config.port).toBe(4123);
  });

  it('runs background threads at nice 10 unless told otherwise, and rejects a nice value outside 0-19', () => {
    expect(loadConfig({}).backgroundNice).toBe(10);
    expect(loadConfig({ ENGRAM_BACKGROUND_NICE: '0' }).backgroundNice).toBe(0);
    for (const bad of ['20', '-1', '2.5', 'low']) expect(() => loadConfig({ ENGRAM_BACKGROUND_NICE: bad })).toThrow(/ENGRAM_BACKGROUND_NICE/);
  });

  it('gives the embedded database a 128 MB buffer cache unless told otherwise, and rejects anything but a whole number of MB', () => {
    expect(loadConfig({}).pgliteSharedBuffersMb).toBe(128);
    expect(loadConfig({ PGLITE_SHARED_BUFFERS_MB: '64' }).pgliteSharedBuffersMb).toBe(64);
    for (const bad of ['0', '-8', '1.5', '64MB']) expect(() => loadConfig({ PGLITE_SHARED_BUFFERS_MB: bad })).toThrow(/PGLITE_SHARED_BUFFERS_MB/);
  });

  it('lets a heap grow 50% past what its last full collection kept unless told otherwise (0: V8 decides), and rejects anything but a percent from 0 to 300', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(50);
    expect(loadConfig({ ENGRAM_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    for (const bad of ['301', '-1', '1.5', 'lots']) expect(() => loadConfig({ ENGRAM_HEAP_GROWTH_PERCENT: bad })).toThrow(/ENGRAM_HEAP_GROWTH_PERCENT/);
  });

  it('searches from memory in every process that searches, and from SQL in a worker unless told otherwise', () => {
    const server = { DATABASE_URL: 'postgres://db/engram', ENGRAM_SECRET_KEY: 'x'.repeat(32), REDIS_URL: 'redis://r:6379' };
    expect(loadConfig({}).searchIndex).toBe('memory');
    expect(loadConfig(server).searchIndex).toBe('memory');
    expect(loadConfig({ ...server, ENGRAM_ROLE: 'worker' }).searchIndex).toBe('sql');
    expect(loadConfig({ ...server, SEARCH_INDEX: 'sql' }).searchIndex).toBe('sql');
    expect(() => loadConfig({ ...server, SEARCH_INDEX: 'disk' })).toThrow(/SEARCH_INDEX/);
  });

  it('requires a shared secret key when the database is a server', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/engram' })).toThrow(/ENGRAM_SECRET_KEY/);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/engram', ENGRAM_SECRET_KEY: 'x'.repeat(32), REDIS_URL: 'redis://r:6379', VECTOR_URL: 'qdrant://q:6333' }).role).toBe('api');
  });

  it('rejects an OpenAI embedder without a key, and an LLM URL without a key', () => {
    expect(() => loadConfig({ EMBEDDING_PROVIDER: 'openai' })).toThrow(/EMBEDDING_API_KEY/);
    expect(() => loadConfig({ LLM_BASE_URL: 'http://llm:8000/v1' })).toThrow(/LLM_API_KEY/);
  });

  it('rejects a separate worker without Redis, and embedded stores shared by separate processes', () => {
    expect(() => loadConfig({ ENGRAM_ROLE: 'worker' })).toThrow(/REDIS_URL/);
    const server = { DATABASE_URL: 'postgres://db/engram', ENGRAM_SECRET_KEY: 'x'.repeat(32), REDIS_URL: 'redis://r:6379' };
    expect(() => loadConfig({ ...server, VECTOR_URL: 'pglite:///tmp/vectors' })).toThrow(/VECTOR_URL/);
    expect(() => loadConfig({ REDIS_URL: 'redis://r:6379' })).toThrow(/VECTOR_URL/);
    // One process (api + worker) may keep its vectors embedded next to a server database and BullMQ.
    expect(loadConfig({ ...server, VECTOR_URL: 'pglite:///tmp/vectors', ENGRAM_ROLE: 'all' }).vectorUrl).toBe('pglite:///tmp/vectors');
  });

  it('names every bad variable in one error', () => {
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/PORT/);
      expect((err as Error).message).toMatch(/LOG_LEVEL/);
    }
  });
});
