import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, writtenTables, type Db } from '../src/index.js';

describe('writtenTables', () => {
  it('names the tables a statement may change, none for reads, and "any" when it cannot tell', () => {
    expect(writtenTables('SELECT * FROM items')).toEqual([]);
    expect(writtenTables('ANALYZE public.items')).toEqual([]);
    expect(writtenTables('INSERT INTO items (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id')).toContain('items');
    expect(writtenTables('UPDATE actors a SET item_count = 1 FROM x WHERE a.id = x.id')).toContain('actors');
    expect(writtenTables('WITH moved AS (UPDATE cluster_members SET cluster_id = $1 RETURNING item_id) INSERT INTO log SELECT * FROM moved')).toEqual(expect.arrayContaining(['cluster_members', 'log']));
    expect(writtenTables("COPY engram_vector_stage (id, embedding) FROM '/dev/blob' WITH (FORMAT binary)")).toEqual(['engram_vector_stage']);
    // A delete may cascade (foreign keys, triggers); DDL may change anything.
    expect(writtenTables('DELETE FROM item_actors WHERE item_id = $1')).toBeNull();
    expect(writtenTables('CREATE TABLE t (id int)')).toBeNull();
  });
});

describe('Db.writeCount per table', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase('pglite://memory');
    await db.exec('CREATE TABLE a (id int PRIMARY KEY); CREATE TABLE b (id int PRIMARY KEY)');
  }, 60_000);
  afterAll(async () => db?.close());

  it('moves for the tables a write changed, and for all of them after a delete', async () => {
    const before = { a: db.writeCount(['a']), b: db.writeCount(['b']), all: db.writeCount() };
    await db.query('INSERT INTO a (id) VALUES (1)');
    expect(db.writeCount(['a'])).not.toBe(before.a);
    expect(db.writeCount(['b'])).toBe(before.b);
    expect(db.writeCount()).toBe(before.all + 1);

    const inTx = db.writeCount(['b']);
    const untouched = db.writeCount(['a']);
    await db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await tx.query('INSERT INTO b (id) VALUES (1)');
    });
    expect(db.writeCount(['b'])).not.toBe(inTx);
    expect(db.writeCount(['a'])).toBe(untouched);

    const beforeDelete = db.writeCount(['b']);
    await db.query('DELETE FROM a WHERE id = 1');
    expect(db.writeCount(['b'])).not.toBe(beforeDelete);

    const read = db.writeCount();
    await db.query('SELECT * FROM a');
    expect(db.writeCount()).toBe(read);
  });
});

describe('Db.writeCount after the schema is known', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase('pglite://memory');
    await migrate(db);
  }, 60_000);
  afterAll(async () => db?.close());

  // A search snapshot of people's items must not be read again because an expertise or re-cluster pass
  // deleted rows of tables it is not read from.
  it('counts a delete for the tables it may reach: the table and what cascades from it', async () => {
    const before = { areaTerms: db.writeCount(['area_term_lists']), members: db.writeCount(['cluster_members']), roles: db.writeCount(['item_actors', 'items']) };
    await db.query('DELETE FROM area_term_lists WHERE workspace_id = $1', ['ws_none']);
    expect(db.writeCount(['area_term_lists'])).not.toBe(before.areaTerms);
    expect(db.writeCount(['item_actors', 'items'])).toBe(before.roles);

    await db.query('DELETE FROM clusters WHERE id = $1', ['cl_none']); // cluster_members cascade from clusters
    expect(db.writeCount(['cluster_members'])).not.toBe(before.members);
    expect(db.writeCount(['item_actors', 'items'])).toBe(before.roles);
  });

  it('counts a delete for every table when what it reaches has triggers of its own, or when it writes more', async () => {
    const roles = db.writeCount(['item_actors']);
    await db.query('DELETE FROM items WHERE id = $1', ['it_none']); // items' triggers write tombstones and delete children
    expect(db.writeCount(['item_actors'])).not.toBe(roles);

    const areas = db.writeCount(['area_term_lists']);
    await db.query('WITH gone AS (DELETE FROM cluster_members WHERE item_id = $1 RETURNING item_id) SELECT count(*) FROM gone', ['it_none']);
    expect(db.writeCount(['area_term_lists'])).not.toBe(areas);
  });
});
