import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgVectorStore, openDatabase, type Db, type PgVectorStore, type VectorRecord } from '../src/index.js';
import { databaseBackends, randomSuffix } from '../src/testing/index.js';

const server = databaseBackends().find((b) => b.name === 'postgres');
const DIMS = 8;
const axis = (i: number): number[] => Array.from({ length: DIMS }, (_, j) => (j === i ? 1 : 0.05));

/**
 * An api process searches an in-memory mirror of the vectors that separate worker processes write: it
 * must see every write, whatever order the writers' transactions commit in. Its own database, so no
 * other suite's collection switch can drop the table under it.
 */
describe.skipIf(!server)('pgvector on a Postgres server: a mirror in another process follows every writer', () => {
  const name = `engram_follow_${randomSuffix()}`;
  const url = server ? new URL(server.url) : null;
  let admin: Db;
  let writerDb: Db;
  let readerDb: Db;
  let writer: PgVectorStore;
  let reader: PgVectorStore;
  const ws = 'ws_follow';
  const spec = { model: 'follow-test', dimensions: DIMS };
  const rec = (item: string, vector: number[], chunk = 0): VectorRecord => ({
    id: chunk === 0 ? item : `${item}#${chunk}`,
    itemId: item,
    workspaceId: ws,
    vector,
    source: 'github',
    type: 'pull_request',
    occurredAt: '2026-01-01T00:00:00Z',
    actorNames: ['alice'],
  });
  const top = async (v: number[]) => (await reader.search(v, { workspaceId: ws }, 10)).map((h) => h.itemId);

  beforeAll(async () => {
    admin = await openDatabase(server!.url);
    await admin.exec(`CREATE DATABASE ${name}`);
    const own = new URL(url!);
    own.pathname = `/${name}`;
    writerDb = await openDatabase(own.toString());
    readerDb = await openDatabase(own.toString());
    if (!(await writerDb.hasVectorExtension())) throw new Error('the pgvector extension is not installed on the server: .ci/run installs it');
    writer = await createPgVectorStore(writerDb);
    await writer.ensureCollection(spec);
  });
  afterAll(async () => {
    await reader?.close();
    await writer?.close();
    await readerDb?.close();
    await writerDb?.close();
    await admin?.exec(`DROP DATABASE IF EXISTS ${name}`);
    await admin?.close();
  });

  it('loads, then follows upserts, deletes, and a write committed after a later-numbered one', async () => {
    await writer.upsert([rec('obs_a', axis(0)), rec('obs_b', axis(1)), rec('obs_b', axis(6), 1)]);
    reader = await createPgVectorStore(readerDb, { memoryIndex: true, followMs: 0 });
    await reader.ensureCollection(spec);
    expect(await reader.memoryReady()).toBe(true);
    // The writer searches with SQL; it holds no mirror.
    expect(await writer.memoryReady()).toBe(false);
    expect((await top(axis(0)))[0]).toBe('obs_a');
    expect((await top(axis(6)))[0]).toBe('obs_b');

    // An item re-embedded (its vectors replaced) and a new one.
    await writer.deleteItems(ws, ['obs_a']);
    await writer.upsert([rec('obs_a', axis(2)), rec('obs_c', axis(3))]);
    expect((await top(axis(2)))[0]).toBe('obs_a');
    expect((await top(axis(3)))[0]).toBe('obs_c');
    const similarity = (await reader.search(axis(0), { workspaceId: ws }, 10)).find((h) => h.itemId === 'obs_a')!.similarity;
    expect(similarity).toBeLessThan(0.5);

    // Deleted: gone with every chunk.
    await writer.deleteItems(ws, ['obs_b']);
    expect(await top(axis(6))).not.toContain('obs_b');

    // Numbered first, committed last: the reader passes its number before it commits.
    let commit!: () => void;
    const gate = new Promise<void>((resolve) => (commit = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const slow = writerDb.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO vectors_follow_test_${DIMS} (id, item_id, workspace_id, source, type, occurred_at, actor_names, embedding)
         VALUES ('obs_d', 'obs_d', $1, 'github', 'pull_request', now(), '{}', $2::vector)`,
        [ws, `[${axis(4).join(',')}]`],
      );
      wrote();
      await gate;
    });
    await written;
    await writer.upsert([rec('obs_e', axis(5))]);
    expect((await top(axis(5)))[0]).toBe('obs_e');
    expect(await top(axis(4))).not.toContain('obs_d');
    commit();
    await slow;
    expect((await top(axis(4)))[0]).toBe('obs_d');
    expect((await top(axis(4))).sort()).toEqual(['obs_a', 'obs_c', 'obs_d', 'obs_e']);
  });
});
