import { getItemState, getStagedEvent, listItemEntities, type Db } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexer, createOfflineEmbedder, itemIdOf, relexIfStale } from '../src/index.js';
import { createHashEmbedder } from '../src/testing/index.js';
import { openHarness, pullRequest, stage, stageAndIndex, tableCounts, vectorChunkIds, type Harness } from './helpers.js';

let h: Harness;
let db: Db;
beforeAll(async () => {
  h = await openHarness(await createOfflineEmbedder({ threads: 1 }));
  db = h.db;
});
afterAll(async () => {
  await h.embedder.close();
  await h.db.close();
});

const itemRow = async (id: string) =>
  (await db.query<{ title: string; content: string; snippet: string; labels: string[]; actor_names: string[]; lexical_length: number }>(
    'SELECT title, content, snippet, labels, actor_names, lexical_length FROM items WHERE id = $1',
    [id],
  )).rows[0];

describe('indexing one staged event', () => {
  it('re-indexing an unchanged event changes nothing', async () => {
    const ws = await testWorkspace(db);
    const pr = pullRequest(7, {
      title: 'Fix quote handling in the JSX printer',
      body: 'Closes #3. Touches `src/language-js/print/jsx.js` and mentions @alice.',
      labels: ['area:jsx'],
      files: ['src/language-js/print/jsx.js'],
      actors: [{ role: 'author', provider: 'github', login: 'octocat', name: 'Mona Lisa' }, { role: 'reviewer', provider: 'github', login: 'alice' }],
    });
    const first = await stageAndIndex(h, ws, pr);
    expect(first.status).toBe('indexed');
    const before = await tableCounts(h, ws);
    const embeddedBefore = h.embedder.embedded.length;

    const again = await stageAndIndex(h, ws, pr);
    expect(again.status).toBe('unchanged');
    expect(await tableCounts(h, ws)).toEqual(before);
    expect(h.embedder.embedded.length).toBe(embeddedBefore);
    expect(before.vectorItems).toBe(1);
  });

  it('a changed event updates the item and re-embeds it once', async () => {
    const ws = await testWorkspace(db);
    const v1 = pullRequest(8, { title: 'Support decorators', body: 'First draft.' });
    await stageAndIndex(h, ws, v1);
    const id = itemIdOf(ws, { type: 'pull_request', source: 'github', externalId: v1.externalId });
    const start = h.embedder.embedded.length;

    const v2 = { ...v1, body: 'Support **decorators** on class fields. See [the spec](https://example.com/spec).', updatedAt: '2025-01-12T00:00:00.000Z' };
    const out = await stageAndIndex(h, ws, v2);
    expect(out).toMatchObject({ status: 'indexed', embedded: true });
    expect(h.embedder.embedded.length - start).toBe(1);
    const row = await itemRow(id);
    expect(row?.content).toBe(v2.body);
    expect(row?.snippet).toBe('Support decorators on class fields. See the spec.');

    expect((await stageAndIndex(h, ws, v2)).status).toBe('unchanged');
    // A label change alters the item but not the embedding text: no new vectors.
    const v3 = { ...v2, labels: ['lang:js'], updatedAt: '2025-01-13T00:00:00.000Z' };
    expect(await stageAndIndex(h, ws, v3)).toMatchObject({ status: 'indexed', embedded: false });
    expect(h.embedder.embedded.length - start).toBe(1);
    expect((await itemRow(id))?.labels).toEqual(['lang:js']);
  });

  it('an older event arriving after a newer one is ignored', async () => {
    const ws = await testWorkspace(db);
    const newer = pullRequest(9, { title: 'Title after edit', updatedAt: '2025-02-01T00:00:00.000Z' });
    const older = pullRequest(9, { title: 'Title before edit', updatedAt: '2025-01-15T00:00:00.000Z' });
    await stageAndIndex(h, ws, newer);
    const [olderId] = await stage(db, ws, [older]);
    expect((await h.indexer.indexEvent(olderId!)).status).toBe('stale');
    const id = itemIdOf(ws, { type: 'pull_request', source: 'github', externalId: newer.externalId });
    expect((await itemRow(id))?.title).toBe('Title after edit');
    expect((await getStagedEvent(db, olderId!))?.status).toBe('skipped');
  });

  it('reports a missing staged event', async () => {
    expect((await h.indexer.indexEvent('evt_does_not_exist')).status).toBe('missing');
  });

  it('chunks long content but keeps one item that vector search returns once', async () => {
    const ws = await testWorkspace(db);
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Step ${i}: the build compiled module number ${i} with the usual warnings about deprecated options.`);
    paragraphs.push('Finally the bundler crashed with zanzibarite overflow in the minifier.');
    const log = pullRequest(10, { title: 'Build failure', body: paragraphs.join('\n\n').repeat(3) });
    await stageAndIndex(h, ws, log);
    const id = itemIdOf(ws, { type: 'pull_request', source: 'github', externalId: log.externalId });
    const chunks = await vectorChunkIds(h, ws, id);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks).toContain(id);
    expect(chunks).toContain(`${id}#1`);
    expect(await h.vectors.count(ws)).toBe(1);
    const [query] = await h.embedder.embed(['zanzibarite overflow minifier']);
    const hits = await h.vectors.search(query!, { workspaceId: ws }, 5);
    expect(hits.map((x) => x.itemId)).toEqual([id]);

    // Shorter content afterwards leaves no orphaned chunks behind.
    await stageAndIndex(h, ws, { ...log, body: 'Fixed.', updatedAt: '2025-03-01T00:00:00.000Z' });
    expect(await vectorChunkIds(h, ws, id)).toEqual([id]);
  });

  it('stores entities and mentions, and keeps entity item counts through an update', async () => {
    const ws = await testWorkspace(db);
    const a = pullRequest(11, { title: 'Fix ENV handling', body: 'Reads `DATABASE_URL` in src/config/env.ts', labels: ['bug'], files: ['src/config/env.ts'] });
    const b = pullRequest(12, { title: 'Docs', body: 'Document the bug label', labels: ['bug'] });
    await stageAndIndex(h, ws, a);
    await stageAndIndex(h, ws, b);
    const idA = itemIdOf(ws, { type: 'pull_request', source: 'github', externalId: a.externalId });
    const entities = await listItemEntities(db, idA);
    expect(entities).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ category: 'label', key: 'bug', itemCount: 2 }),
        expect.objectContaining({ category: 'file', key: 'src/config/env.ts' }),
        expect.objectContaining({ category: 'person', key: 'octocat' }),
        expect.objectContaining({ category: 'env_var', key: 'DATABASE_URL' }),
      ]),
    );
    await stageAndIndex(h, ws, { ...a, labels: [], updatedAt: '2025-02-01T00:00:00.000Z' });
    const bug = await db.query<{ item_count: number }>("SELECT item_count FROM entities WHERE workspace_id = $1 AND category = 'label' AND key = 'bug'", [ws]);
    expect(bug.rows[0]?.item_count).toBe(1);
    const mentions = await db.query<{ n: string }>('SELECT count(*) AS n FROM entity_mentions WHERE workspace_id = $1', [ws]);
    const counted = await db.query<{ n: string }>('SELECT sum(item_count) AS n FROM entities WHERE workspace_id = $1', [ws]);
    expect(Number(counted.rows[0]?.n)).toBe(Number(mentions.rows[0]?.n));
  });

  it('keeps lexicon document frequencies equal to the indexed items after an update', async () => {
    const ws = await testWorkspace(db);
    const a = pullRequest(13, { title: 'Faster parser', body: 'The parser caches tokens.' });
    const b = pullRequest(14, { title: 'Parser docs', body: 'Explain parser options.' });
    await stageAndIndex(h, ws, a);
    await stageAndIndex(h, ws, b);
    const df = async (term: string) =>
      Number((await db.query<{ df: number }>('SELECT df FROM lexicon WHERE workspace_id = $1 AND term = $2', [ws, term])).rows[0]?.df ?? 0);
    expect(await df('parser')).toBe(2);
    await stageAndIndex(h, ws, { ...a, title: 'Faster formatter', body: 'The formatter caches output.', updatedAt: '2025-02-01T00:00:00.000Z' });
    expect(await df('parser')).toBe(1);
    expect(await df('formatt')).toBe(1);
    expect(await df('token')).toBe(0);
    const recount = await db.query<{ term: string; n: string }>(
      'SELECT term, count(*) AS n FROM items, unnest(tsvector_to_array(search_vector)) AS term WHERE workspace_id = $1 GROUP BY term ORDER BY term',
      [ws],
    );
    const lexicon = await db.query<{ term: string; df: number }>('SELECT term, df FROM lexicon WHERE workspace_id = $1 ORDER BY term', [ws]);
    expect(lexicon.rows.map((r) => [r.term, Number(r.df)])).toEqual(recount.rows.map((r) => [r.term, Number(r.n)]));
  });

  it('rebuilds a stale lexical index from the stored items, the lexicon with it, once per version', async () => {
    const ws = await testWorkspace(db);
    const pr = pullRequest(16, { title: 'Fix comment print in `if`', body: 'Bump typescript from 4.5.5 to 4.6.2', files: ['src/print/ForXStatement.js'] });
    await stageAndIndex(h, ws, pr);
    const id = itemIdOf(ws, { type: 'pull_request', source: 'github', externalId: pr.externalId });
    const terms = async () => (await getItemState(db, id))?.terms ?? [];
    const fresh = await terms();
    const freshCounts = await tableCounts(h, ws);
    expect(fresh).toEqual(expect.arrayContaining(['if', '46', 'for', 'statement']));

    // An index written by an older tokenizer: `if` dropped, versions whole, its lexicon to match.
    const old = 'fix comment print';
    await db.query(
      "UPDATE items SET search_vector = setweight(to_tsvector('simple', $2), 'A') || setweight(to_tsvector('simple', 'bump typescript 455 462'), 'B'), lexical_length = 7 WHERE id = $1",
      [id, old],
    );
    await db.query('DELETE FROM lexicon WHERE workspace_id = $1', [ws]);
    await db.query("INSERT INTO lexicon (workspace_id, term, df) SELECT $1, t, 1 FROM unnest(tsvector_to_array((SELECT search_vector FROM items WHERE id = $2))) AS t", [ws, id]);
    await db.query("DELETE FROM settings WHERE key = 'lexical_version'");

    expect(await relexIfStale(db, [ws])).toEqual(new Map([[ws, 1]]));
    expect((await terms()).sort()).toEqual([...fresh].sort());
    expect(await tableCounts(h, ws)).toEqual(freshCounts);
    const lexicon = await db.query<{ term: string }>('SELECT term FROM lexicon WHERE workspace_id = $1 ORDER BY term', [ws]);
    expect(lexicon.rows.map((r) => r.term)).toEqual([...fresh].sort());
    // Recorded: the next start does nothing.
    expect(await relexIfStale(db, [ws])).toBeNull();
  });

  it('weights title, body and path tokens in the lexical index', async () => {
    const ws = await testWorkspace(db);
    const pr = pullRequest(15, { title: 'Markdown tables', body: 'Align columns', files: ['src/language-markdown/printer.js'] });
    await stageAndIndex(h, ws, pr);
    const id = itemIdOf(ws, { type: 'pull_request', source: 'github', externalId: pr.externalId });
    const res = await db.query<{ v: string }>('SELECT search_vector::text AS v FROM items WHERE id = $1', [id]);
    expect(res.rows[0]?.v).toMatch(/'tabl':\d+A/);
    expect(res.rows[0]?.v).toMatch(/'align':\d+B/);
    expect(res.rows[0]?.v).toMatch(/'printer':\d+C/);
    const state = await getItemState(db, id);
    expect(state?.embeddingHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('re-embeds every item into a new collection when the model changes', async () => {
    const ws = await testWorkspace(db);
    await stageAndIndex(h, ws, pullRequest(16, { title: 'One', body: 'first item' }));
    await stageAndIndex(h, ws, pullRequest(17, { title: 'Two', body: 'second item' }));
    const next = createHashEmbedder({ dimensions: 32, model: 'next-model' });
    const state = await h.vectors.ensureCollection({ model: next.model, dimensions: next.dimensions });
    expect(state.modelChanged).toBe(true);
    const indexer = createIndexer({ db, vectors: h.vectors, embedder: next });
    expect(await indexer.reembedAll(ws)).toBe(2);
    expect(await h.vectors.count(ws)).toBe(2);
    // Re-delivering an item after the switch finds it fully indexed for the new model.
    expect((await stageAndIndex({ ...h, indexer, embedder: next }, ws, pullRequest(16, { title: 'One', body: 'first item' }))).status).toBe('unchanged');
    await h.vectors.ensureCollection({ model: h.embedder.model, dimensions: h.embedder.dimensions });
  });
});
