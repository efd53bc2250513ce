import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKeyRows, IDENTITY_RELATION, replaceItemsRefs, upsertItems, type Db, type ItemRow } from '../src/index.js';
import { databaseBackends, openTestDatabase, testWorkspace } from '../src/testing/index.js';

// Linking a batch reads, for the keys its items reference, every row, and for the items' own keys (their
// titles among them, shared by many items) only the references: who points at them.
describe.each(databaseBackends())('the rows a batch links against on $name', ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDatabase(url);
  });
  afterAll(async () => db?.close());

  const row = (ws: string, n: number, type = 'pull_request'): ItemRow => ({
    id: `obs_${ws}_${n}`, workspaceId: ws, connectionId: null, source: 'github', type, externalId: `pr:${n}`, url: `https://example.com/${n}`,
    title: 'Update dependencies', content: 'Update dependencies', snippet: '', container: 'o/r', state: null, labels: [],
    files: [], actorNames: [], metadata: {}, occurredAt: `2026-01-0${n}T00:00:00.000Z`, sourceUpdatedAt: '2026-01-01T00:00:00Z', contentHash: `h${n}`,
  });

  it('returns every row on referenced keys and only references on own keys, each row once', async () => {
    const ws = await testWorkspace(db);
    const items = [row(ws, 1), row(ws, 2), row(ws, 3, 'commit'), row(ws, 4)];
    const title = 'title:update dependencies';
    await db.transaction(async (tx) => {
      await upsertItems(tx, items.map((item) => ({ item, lexical: { title: 'updat depend', body: '', other: '', length: 2 } })));
      await replaceItemsRefs(tx, ws, [
        { itemId: items[0]!.id, refs: [{ key: 'gh:o/r#1', relation: IDENTITY_RELATION, confidence: 1 }, { key: title, relation: IDENTITY_RELATION, confidence: 0.5 }] },
        { itemId: items[1]!.id, refs: [{ key: 'gh:o/r#2', relation: IDENTITY_RELATION, confidence: 1 }, { key: title, relation: IDENTITY_RELATION, confidence: 0.5 }] },
        // A squash commit: merged as pull request 1, and a revert of the title.
        { itemId: items[2]!.id, refs: [{ key: 'gh:o/r#1', relation: 'merged_as', confidence: 0.9 }, { key: title, relation: 'reverts', confidence: 0.4 }] },
        { itemId: items[3]!.id, refs: [{ key: 'gh:o/r#4', relation: IDENTITY_RELATION, confidence: 1 }, { key: 'gh:o/r#2', relation: 'fixes', confidence: 0.8 }] },
      ]);
    });
    const show = (rows: Awaited<ReturnType<typeof findKeyRows>>) =>
      rows.map((r) => `${r.itemId.slice(-1)} ${r.itemType} ${r.key} ${r.relation} ${r.confidence.toFixed(1)} ${r.occurredAt}`).sort();

    // Own keys (gh:o/r#1 and the title): the references to them, not the other holders of the title.
    expect(show(await findKeyRows(db, ws, { anyRelation: [], referencesOnly: ['gh:o/r#1', title] }))).toEqual([
      `3 commit gh:o/r#1 merged_as 0.9 2026-01-03T00:00:00.000Z`,
      `3 commit ${title} reverts 0.4 2026-01-03T00:00:00.000Z`,
    ]);
    // Referenced keys: every row on them; a key asked both ways comes back once a row.
    expect(show(await findKeyRows(db, ws, { anyRelation: ['gh:o/r#2', title], referencesOnly: [title, 'gh:o/r#4'] }))).toEqual([
      `1 pull_request ${title} key 0.5 2026-01-01T00:00:00.000Z`,
      `2 pull_request gh:o/r#2 key 1.0 2026-01-02T00:00:00.000Z`,
      `2 pull_request ${title} key 0.5 2026-01-02T00:00:00.000Z`,
      `3 commit ${title} reverts 0.4 2026-01-03T00:00:00.000Z`,
      `4 pull_request gh:o/r#2 fixes 0.8 2026-01-04T00:00:00.000Z`,
    ]);
    expect(await findKeyRows(db, ws, { anyRelation: [], referencesOnly: ['gh:o/r#4'] })).toEqual([]);
  });
});
