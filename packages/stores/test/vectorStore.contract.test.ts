import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgVectorStore, createQdrantVectorStore, openDatabase, type Db, type PgVectorStore, type VectorStore } from '../src/index.js';
import { databaseBackends, qdrantUrl, randomSuffix } from '../src/testing/index.js';

const DIMS = 8;
const unit = (v: number[]): number[] => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const axis = (i: number, noise = 0): number[] => unit(Array.from({ length: DIMS }, (_, j) => (j === i ? 1 : noise)));

interface Target {
  name: string;
  open: () => Promise<{ store: VectorStore; db?: Db } | null>;
}

const targets: Target[] = databaseBackends().map((b) => ({
  name: `pgvector on ${b.name}`,
  open: async () => {
    const db = await openDatabase(b.url);
    if (!(await db.hasVectorExtension())) {
      await db.close();
      if (process.env.CI === 'true') throw new Error(`CI=true but the pgvector extension is not installed on ${b.name}: .ci/run installs it`);
      return null;
    }
    return { store: await createPgVectorStore(db), db };
  },
}));
const qdrant = qdrantUrl();
if (qdrant) targets.push({ name: 'qdrant', open: async () => ({ store: await createQdrantVectorStore(qdrant) }) });

describe.each(targets)('vector store contract: $name', ({ open }) => {
  let store: VectorStore | null = null;
  let db: Db | undefined;
  const ws = `ws_${randomSuffix()}`;
  const model = `contract-test-${randomSuffix()}`;

  beforeAll(async () => {
    const opened = await open();
    // Server Postgres without the pgvector extension (Debian 12's packages lack it; .ci/run builds it): nothing to test there.
    if (!opened) return;
    store = opened.store;
    db = opened.db;
    await store.ensureCollection({ model, dimensions: DIMS });
    const rec = (item: string, chunk: number, v: number[], extra: Partial<{ source: string; type: string; occurredAt: string; actorNames: string[] }> = {}) => ({
      id: chunk === 0 ? item : `${item}#${chunk}`,
      itemId: item,
      workspaceId: ws,
      vector: v,
      source: 'github',
      type: 'pull_request',
      occurredAt: '2026-01-01T00:00:00Z',
      actorNames: ['alice'],
      ...extra,
    });
    await store.upsert([
      rec('obs_a', 0, axis(0)),
      rec('obs_a', 1, axis(1, 0.1)),
      rec('obs_b', 0, axis(1)),
      rec('obs_c', 0, axis(2), { source: 'linear', type: 'issue', actorNames: ['bob'], occurredAt: '2024-06-01T00:00:00Z' }),
      rec('obs_d', 0, axis(0, 0.3)),
    ]);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  it('returns items by their best chunk, each item once, most similar first', async ({ skip }) => {
    if (!store) return skip('pgvector extension not installed on this server');
    const hits = await store.search(axis(1), { workspaceId: ws }, 10);
    expect(hits.map((h) => h.itemId).slice(0, 2).sort()).toEqual(['obs_a', 'obs_b']);
    expect(new Set(hits.map((h) => h.itemId)).size).toBe(hits.length);
    expect(hits[0]!.similarity).toBeGreaterThan(0.99);
  });

  it('applies filters inside retrieval', async ({ skip }) => {
    if (!store) return skip('pgvector extension not installed on this server');
    expect((await store.search(axis(0), { workspaceId: ws, sources: ['linear'] }, 1)).map((h) => h.itemId)).toEqual(['obs_c']);
    expect((await store.search(axis(0), { workspaceId: ws, actorNames: ['bob'] }, 5)).map((h) => h.itemId)).toEqual(['obs_c']);
    expect((await store.search(axis(0), { workspaceId: ws, to: '2025-01-01T00:00:00Z' }, 5)).map((h) => h.itemId)).toEqual(['obs_c']);
    const excluded = await store.search(axis(0), { workspaceId: ws, excludeItemIds: ['obs_a'] }, 5);
    expect(excluded.map((h) => h.itemId)).not.toContain('obs_a');
    expect(await store.search(axis(0), { workspaceId: `${ws}_other` }, 5)).toEqual([]);
  });

  it('upserts in place, deletes every chunk of an item, and counts items', async ({ skip }) => {
    if (!store) return skip('pgvector extension not installed on this server');
    expect(await store.count(ws)).toBe(4);
    const vectors = await store.getVectors(ws, ['obs_b']);
    expect(vectors.get('obs_b')?.[1]).toBeCloseTo(1, 5);
    await store.deleteItems(ws, ['obs_a']);
    expect(await store.count(ws)).toBe(3);
    expect((await store.search(axis(1), { workspaceId: ws }, 10)).map((h) => h.itemId)).not.toContain('obs_a');
  });

  it('switches to a fresh collection when the model changes, never mixing two models', async ({ skip }) => {
    if (!store) return skip('pgvector extension not installed on this server');
    const state = await store.ensureCollection({ model: `${model}-v2`, dimensions: DIMS + 4 });
    expect(state.modelChanged).toBe(true);
    expect(state.previous).toEqual({ model, dimensions: DIMS });
    expect(await store.count(ws)).toBe(0);
  });
});

describe('pgvector on PGlite: the in-memory index answers as SQL does, and follows every write', () => {
  const D = 16;
  let db: Db;
  let memory: PgVectorStore;
  let sql: PgVectorStore;
  // A small deterministic generator, so a failure replays.
  let seed = 7;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648 - 0.5;
  };
  const vector = (): number[] => Array.from({ length: D }, random);
  const record = (i: number, chunk = 0) => ({
    id: chunk === 0 ? `obs_${i}` : `obs_${i}#${chunk}`,
    itemId: `obs_${i}`,
    workspaceId: i % 5 === 0 ? 'ws_other' : 'ws_main',
    vector: vector(),
    source: i % 3 === 0 ? 'linear' : 'github',
    type: i % 4 === 0 ? 'commit' : 'pull_request',
    occurredAt: new Date(Date.UTC(2024, i % 12, 1 + (i % 27))).toISOString(),
    actorNames: [i % 2 === 0 ? 'alice' : 'bob'],
  });
  const filters = [
    { workspaceId: 'ws_main' },
    { workspaceId: 'ws_main', sources: ['linear'], types: ['commit'] },
    { workspaceId: 'ws_main', actorNames: ['bob'], from: '2024-03-01T00:00:00.000Z', to: '2024-09-30T00:00:00.000Z' },
    { workspaceId: 'ws_main', excludeItemIds: ['obs_1', 'obs_2', 'obs_3'] },
    { workspaceId: 'ws_other' },
  ];
  const agree = async (mirror: VectorStore = memory): Promise<void> => {
    for (let q = 0; q < 5; q++) {
      const query = vector();
      for (const filter of filters) {
        const fromMemory = await mirror.search(query, filter, 10);
        const fromSql = await sql.search(query, filter, 10);
        expect(fromMemory.map((h) => h.itemId)).toEqual(fromSql.map((h) => h.itemId));
        // The mirror's 16-bit rows move a similarity by ~1e-5.
        fromMemory.forEach((h, i) => expect(h.similarity).toBeCloseTo(fromSql[i]!.similarity, 4));
      }
    }
  };

  beforeAll(async () => {
    db = await openDatabase('pglite://memory');
    memory = await createPgVectorStore(db);
    sql = await createPgVectorStore(db, { memoryIndex: false });
    await memory.ensureCollection({ model: 'memory-index-test', dimensions: D });
    await sql.ensureCollection({ model: 'memory-index-test', dimensions: D });
    await memory.upsert(Array.from({ length: 300 }, (_, i) => record(i)));
    await memory.upsert(Array.from({ length: 40 }, (_, i) => record(i * 7, 1)));
  });
  afterAll(async () => {
    await db?.close();
  });

  it('ranks and filters exactly as the SQL search', async () => {
    expect(await memory.memoryReady()).toBe(true);
    expect(await sql.memoryReady()).toBe(false);
    await agree();
  });

  it('follows upserts and deletes made after it loaded', async () => {
    await memory.upsert(Array.from({ length: 50 }, (_, i) => record(i + 10)));
    await memory.upsert(Array.from({ length: 20 }, (_, i) => record(300 + i)));
    await memory.deleteItems('ws_main', ['obs_14', 'obs_21', 'obs_300']);
    const gone = await memory.search(vector(), { workspaceId: 'ws_main' }, 1_000);
    expect(gone.map((h) => h.itemId)).not.toContain('obs_21');
    expect(gone.map((h) => h.itemId)).toContain('obs_301');
    await agree();
  });

  it("reads items' vectors from the mirror as the SQL store's, as unit vectors, and reads SQL for what the mirror does not hold", async () => {
    const unit = (v: Float32Array) => {
      const n = Math.hypot(...v);
      return Array.from(v, (x) => x / n);
    };
    const ids = ['obs_1', 'obs_7', 'obs_11', 'obs_21', 'obs_5', 'obs_nope'];
    const fromMemory = await memory.getVectors('ws_main', ids);
    const fromSql = await sql.getVectors('ws_main', ids);
    // obs_21 was deleted, obs_5 belongs to another workspace, obs_nope never existed.
    expect([...fromMemory.keys()].sort()).toEqual(['obs_1', 'obs_11', 'obs_7']);
    expect([...fromSql.keys()].sort()).toEqual(['obs_1', 'obs_11', 'obs_7']);
    // Within the mirror's 16-bit rounding (1.6e-5 a value).
    for (const [id, v] of fromSql) unit(v).forEach((x, d) => expect(Math.abs(fromMemory.get(id)![d]! - x)).toBeLessThanOrEqual(1 / 65_534 + 1e-7));
    // A zero vector is no row of the mirror (it never matches a search): SQL still has it.
    await memory.upsert([{ ...record(401), vector: Array.from({ length: D }, () => 0) }]);
    expect((await memory.getVectors('ws_main', ['obs_401', 'obs_1'])).get('obs_401')).toEqual(new Float32Array(D));
  });

  it('loads a mirror from the table that ranks as the SQL search, and reads each stored value back exactly', async () => {
    // Values a decimal round trip could move: float32's extremes, a subnormal, negative zero.
    const values = [1.5, -2.25, 3.4028234663852886e38, 1.401298464324817e-45, -0, 0.1, -1e-7, 123456.789];
    await sql.upsert([{ ...record(402), vector: [...values, ...Array.from({ length: D - values.length }, (_, i) => i / 7)] }]);
    const stored = (await sql.getVectors('ws_main', ['obs_402'])).get('obs_402')!;
    expect(Array.from(stored.subarray(0, values.length))).toEqual(Array.from(Float32Array.from(values)));
    // A store opened on the written table loads its mirror from the rows.
    const reopened = await createPgVectorStore(db);
    await reopened.ensureCollection({ model: 'memory-index-test', dimensions: D });
    expect(await reopened.memoryReady()).toBe(true);
    await agree(reopened);
  });
});

describe('pgvector on PGlite: no HNSW index while the memory index serves searches', () => {
  const D = 8;
  let db: Db;
  const hnsw = async (): Promise<boolean> =>
    (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_indexes WHERE indexname LIKE 'vectors_%_hnsw'")).rows[0]!.n > 0;
  const record = (i: number) => ({
    id: `obs_${i}`, itemId: `obs_${i}`, workspaceId: 'ws_main', vector: unit(Array.from({ length: D }, (_, j) => Math.sin(i * 12.9898 + j * 78.233))),
    source: 'github', type: 'pull_request', occurredAt: '2024-01-01T00:00:00.000Z', actorNames: [],
  });
  afterAll(async () => db?.close());

  it('skips the index under the cap, drops one left from before, and builds it once the table outgrows the cap', async () => {
    db = await openDatabase('pglite://memory');
    const sql = await createPgVectorStore(db, { memoryIndex: false });
    await sql.ensureCollection({ model: 'hnsw-cap-test', dimensions: D });
    expect(await hnsw()).toBe(true);

    const memory = await createPgVectorStore(db, { memoryMaxChunks: 50 });
    await memory.ensureCollection({ model: 'hnsw-cap-test', dimensions: D });
    expect(await hnsw()).toBe(false);
    await memory.upsert(Array.from({ length: 30 }, (_, i) => record(i)));
    expect(await memory.memoryReady()).toBe(true);
    expect(await hnsw()).toBe(false);
    const query = axis(3, 0.05);
    const before = await memory.search(query, { workspaceId: 'ws_main' }, 5);
    expect(before.map((h) => h.itemId)).toEqual((await sql.search(query, { workspaceId: 'ws_main' }, 5)).map((h) => h.itemId));

    await memory.upsert(Array.from({ length: 40 }, (_, i) => record(30 + i)));
    expect(await hnsw()).toBe(true);
    expect(await memory.memoryReady()).toBe(false);
    const after = await memory.search(query, { workspaceId: 'ws_main' }, 5);
    expect(after.map((h) => h.itemId)).toEqual((await sql.search(query, { workspaceId: 'ws_main' }, 5)).map((h) => h.itemId));
    expect(after).toHaveLength(5);
  });
});

describe.each([
  { name: 'in process', pgliteThread: false },
  { name: 'on its thread', pgliteThread: true },
])('pgvector on PGlite $name: rows loaded by binary COPY are the rows the SQL path writes', ({ pgliteThread }) => {
  const D = 12;
  let db: Db;
  let copied: PgVectorStore;
  let literal: PgVectorStore;
  // float32 values, as an encoder gives them: both paths store them exactly
  const vector = (i: number): number[] => Array.from({ length: D }, (_, j) => Math.fround(Math.sin(i * 3.1 + j) / (j + 1)));
  const record = (ws: string, i: number, actorNames: string[], vectorOf = i) => ({
    id: i % 2 === 0 ? `${ws}:obs_ü${i}` : `${ws}:obs_ü${i - 1}#1`,
    itemId: `${ws}:obs_ü${i - (i % 2)}`,
    workspaceId: ws,
    vector: vector(vectorOf),
    source: 'github',
    type: 'pull_request',
    occurredAt: new Date(Date.UTC(2025, i % 12, 3, 4, 5, 6, 789)).toISOString(),
    actorNames,
  });
  const names = [[], ['alice'], ['bob "the builder"', 'c\\d', 'e,f', '{g}', 'NULL', 'Zoë 🚀', '']];
  // ids are unique across workspaces: each workspace's rows without its prefix
  const rows = async (ws: string) =>
    (
      await db.query<{ id: string; item_id: string; source: string; type: string; occurred_at: unknown; actor_names: string[]; embedding: string }>(
        `SELECT id, item_id, source, type, occurred_at, actor_names, embedding::text AS embedding FROM vectors_copy_test_12 WHERE workspace_id = $1 ORDER BY id`,
        [ws],
      )
    ).rows.map((r) => ({ ...r, id: r.id.slice(ws.length + 1), item_id: r.item_id.slice(ws.length + 1) }));

  beforeAll(async () => {
    db = await openDatabase('pglite://memory', { pgliteThread });
    expect(db.copyFrom).toBeTypeOf('function');
    copied = await createPgVectorStore(db);
    const withoutCopy: Db = { ...db };
    delete withoutCopy.copyFrom;
    literal = await createPgVectorStore(withoutCopy);
    await copied.ensureCollection({ model: 'copy-test', dimensions: D });
    await literal.ensureCollection({ model: 'copy-test', dimensions: D });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('writes text, arrays and vectors byte for byte as the literal path does, and updates on conflict', async () => {
    for (const [store, ws] of [
      [copied, 'ws_copy'],
      [literal, 'ws_literal'],
    ] as const) {
      await store.upsert(Array.from({ length: 9 }, (_, i) => record(ws, i, names[i % names.length]!)));
      // the same ids again, with new vectors and names: updated in place, not duplicated
      await store.upsert(Array.from({ length: 4 }, (_, i) => record(ws, i, names[(i + 1) % names.length]!, 100 + i)));
    }
    const fromCopy = await rows('ws_copy');
    expect(fromCopy).toHaveLength(9);
    expect(fromCopy).toEqual(await rows('ws_literal'));
    const first = fromCopy.find((r) => r.id === 'obs_ü2')!;
    expect(first.actor_names).toEqual(names[0]);
    expect((JSON.parse(first.embedding) as number[]).map(Math.fround)).toEqual(vector(102));
    expect(fromCopy.find((r) => r.id === 'obs_ü6')!.actor_names).toEqual(names[0]);
    expect(fromCopy.find((r) => r.id === 'obs_ü8')!.actor_names).toEqual(names[2]);
    // the mirror saw the same writes: the vector search finds the updated vector first
    expect((await copied.search(vector(102), { workspaceId: 'ws_copy' }, 1))[0]).toMatchObject({ itemId: 'ws_copy:obs_ü2' });
  });

  it('leaves nothing behind when a write fails: the staging rows go with the transaction', async () => {
    const before = await rows('ws_copy');
    await expect(copied.upsert([{ ...record('ws_copy', 20, ['x']), occurredAt: 'not a date' }])).rejects.toThrow();
    expect(await rows('ws_copy')).toEqual(before);
    await copied.upsert([record('ws_copy', 22, ['y'])]);
    expect((await rows('ws_copy')).map((r) => r.id)).toContain('obs_ü22');
  });
});
