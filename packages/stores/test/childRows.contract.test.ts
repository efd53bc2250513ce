import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteWorkspace, replaceItemsEntities, upsertItems, type Db, type ItemRow } from '../src/index.js';
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

  it('checks no foreign key row by row on these tables', async () => {
    const res = await db.query<{ table: string }>(
      "SELECT conrelid::regclass::text AS table FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text IN ('postings', 'entity_mentions')",
    );
    expect(res.rows).toEqual([]);
  });
});
