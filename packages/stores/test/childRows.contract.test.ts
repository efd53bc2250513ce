import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteWorkspace, MENTIONS_PER_STATEMENT, replaceItemsEntities, upsertItems, type Db, type ItemRow } from '../src/index.js';
import { databaseBackends, openTestDatabase, testWorkspace } from '../src/testing/index.js';

// Postings and entity mentions carry no row-by-row foreign key (migration 009): a statement-level
// trigger on their parent deletes them instead. An item or entity that goes must take its rows with it,
// or searches would find postings of deleted items.
describe.each(databaseBackends())('postings and entity mentions follow their item and entity on $name', ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDatabase(url);
  });
  afterAll(async () => db?.close());

  const row = (ws: string, n: number): ItemRow => ({
    id: `obs_${ws}_${n}`, workspaceId: ws, connectionId: null, source: 'github', type: 'pull_request', externalId: `pr:${n}`, url: `https://example.com/${n}`,
    title: `Fix yaml comments ${n}`, content: `Fix yaml comments ${n}\n\nbody`, snippet: `Fix yaml comments ${n}`, container: 'o/r', state: null, labels: [],
    files: [], actorNames: [], metadata: {}, occurredAt: '2026-01-01T00:00:00Z', sourceUpdatedAt: '2026-01-01T00:00:00Z', contentHash: `h${n}`,
  });

  async function seed(ws: string): Promise<string[]> {
    const items = [row(ws, 1), row(ws, 2), row(ws, 3)];
    await db.transaction(async (tx) => {
      await upsertItems(tx, items.map((item) => ({ item, lexical: { title: item.title ?? '', body: 'body words', other: '', length: 6 } })));
      await replaceItemsEntities(tx, ws, items.map((item, i) => ({
        itemId: item.id,
        entities: [{ category: 'language', key: 'yaml', confidence: 1 }, { category: 'keyword', key: `k${i}`, confidence: 0.5 }],
      })));
    });
    return items.map((i) => i.id);
  }
  const count = async (table: string, column: string, ids: readonly string[]): Promise<number> =>
    Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ANY($1::text[])`, [ids])).rows[0]!.n);

  it('deleting items deletes their postings and mentions and nothing of the items that stay', async () => {
    const ws = await testWorkspace(db);
    const [a, b, c] = await seed(ws);
    // The embedded database keeps no postings (`POSTINGS_KEPT`); its mentions follow the same trigger.
    if (db.kind === 'postgres') expect(await count('postings', 'item_id', [a!])).toBeGreaterThan(0);
    else expect(await count('postings', 'item_id', [a!, b!, c!])).toBe(0);
    expect(await count('entity_mentions', 'item_id', [a!])).toBe(2);
    const keptPostings = await count('postings', 'item_id', [c!]);

    await db.query('DELETE FROM items WHERE id = ANY($1::text[])', [[a, b]]);
    expect(await count('postings', 'item_id', [a!, b!])).toBe(0);
    expect(await count('entity_mentions', 'item_id', [a!, b!])).toBe(0);
    expect(await count('postings', 'item_id', [c!])).toBe(keptPostings);
    expect(await count('entity_mentions', 'item_id', [c!])).toBe(2);
  });

  it('deleting an entity deletes its mentions; deleting the workspace leaves no rows', async () => {
    const ws = await testWorkspace(db);
    const ids = await seed(ws);
    await db.query("DELETE FROM entities WHERE workspace_id = $1 AND key = 'yaml'", [ws]);
    expect(await count('entity_mentions', 'item_id', ids)).toBe(3);

    await deleteWorkspace(db, ws);
    expect(await count('postings', 'item_id', ids)).toBe(0);
    expect(await count('entity_mentions', 'item_id', ids)).toBe(0);
  });

  it('keeps every mention of a batch larger than one statement takes, and each entity\'s item count, when the batch is written again', async () => {
    const ws = await testWorkspace(db);
    const items = Array.from({ length: 40 }, (_, n) => row(ws, 100 + n));
    // 40 items x 30 entities: more mentions than one INSERT takes, entities shared across items.
    const entitiesOf = (n: number, shift: number) => Array.from({ length: 30 }, (_, k) => ({ category: 'keyword', key: `e${(n + k + shift) % 60}`, confidence: 0.5 }));
    const write = (shift: number) =>
      db.transaction(async (tx) => {
        await upsertItems(tx, items.map((item) => ({ item, lexical: { title: item.title ?? '', body: 'body', other: '', length: 4 } })));
        await replaceItemsEntities(tx, ws, items.map((item, n) => ({ itemId: item.id, entities: entitiesOf(n, shift) })));
      });
    const ids = items.map((i) => i.id);
    expect(40 * 30).toBeGreaterThan(2 * MENTIONS_PER_STATEMENT);
    const counts = async () =>
      Object.fromEntries(
        (await db.query<{ key: string; n: number }>('SELECT key, item_count AS n FROM entities WHERE workspace_id = $1 ORDER BY key', [ws])).rows.map((r) => [r.key, Number(r.n)]),
      );
    const expected = (shift: number) => {
      const out: Record<string, number> = {};
      items.forEach((_, n) => entitiesOf(n, shift).forEach((e) => (out[e.key] = (out[e.key] ?? 0) + 1)));
      return out;
    };
    await write(0);
    expect(await count('entity_mentions', 'item_id', ids)).toBe(1200);
    expect(await counts()).toEqual(expected(0));
    // Written again with other entities for each item: the old mentions go, the counts follow.
    await write(7);
    expect(await count('entity_mentions', 'item_id', ids)).toBe(1200);
    expect(await counts()).toEqual(Object.fromEntries(Object.entries(expected(7)).filter(([, n]) => n > 0)));
    const one = await db.query<{ key: string }>(
      'SELECT e.key FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE m.item_id = $1 ORDER BY e.key',
      [items[3]!.id],
    );
    expect(one.rows.map((r) => r.key)).toEqual(entitiesOf(3, 7).map((e) => e.key).sort());
  });

  it('checks no foreign key row by row on these tables', async () => {
    const res = await db.query<{ table: string }>(
      "SELECT conrelid::regclass::text AS table FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text IN ('postings', 'entity_mentions')",
    );
    expect(res.rows).toEqual([]);
  });
});
