import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyLexiconChange,
  changesSince,
  consistentReads,
  feedStart,
  createMemoryReadModel,
  createSqlReadModel,
  fieldTf,
  getItemState,
  insertActor,
  mergeActors,
  replaceItemActors,
  replaceItemEdges,
  replaceItemEntities,
  upsertItem,
  type Db,
  type ItemFilter,
  type ItemRow,
  type Queryable,
  type SearchReadModel,
} from '../src/index.js';
import { databaseBackends, openTestDatabase, randomSuffix, testWorkspace } from '../src/testing/index.js';

interface Doc {
  n: number;
  type?: string;
  title: string;
  body: string;
  files?: string;
  actors?: string[];
  at?: string;
  entities?: { category: string; key: string; confidence: number }[];
  /** Its people's roles (actor ids of the workspace). */
  roles?: { actorId: string; role: string }[];
}

/** Writes an item as the indexer does: row and postings, lexicon, entities (one transaction). */
async function write(db: Db, workspaceId: string, doc: Doc, prefix: string): Promise<string> {
  const id = `${prefix}-${doc.n}`;
  const item: ItemRow = {
    id,
    workspaceId,
    connectionId: null,
    source: 'github',
    type: doc.type ?? 'pull_request',
    externalId: id,
    url: `https://example.test/${id}`,
    title: doc.title,
    content: doc.body,
    snippet: doc.body.slice(0, 50),
    container: null,
    state: null,
    labels: [],
    files: [],
    actorNames: doc.actors ?? [],
    metadata: {},
    occurredAt: doc.at ?? '2026-01-01T00:00:00Z',
    sourceUpdatedAt: '2026-01-01T00:00:00Z',
    contentHash: `${doc.title}|${doc.body}|${doc.files ?? ''}|${JSON.stringify(doc.roles ?? [])}`,
  };
  const length = `${doc.title} ${doc.body} ${doc.files ?? ''}`.split(/\s+/).filter(Boolean).length;
  await db.transaction(async (tx) => {
    const before = (await getItemState(tx, id))?.terms ?? [];
    const terms = await upsertItem(tx, item, { title: doc.title, body: doc.body, other: doc.files ?? '', length });
    await applyLexiconChange(tx, workspaceId, before, terms);
    await replaceItemEntities(tx, { workspaceId, itemId: id, entities: doc.entities ?? [] });
    if (doc.roles) await replaceItemActors(tx, { workspaceId, itemId: id, roles: doc.roles });
  });
  return id;
}

/** A read model's answers in a form two implementations can be compared by. */
async function snapshot(read: SearchReadModel, filter: ItemFilter, terms: string[], keys: string[], ids: string[]) {
  const postings = await read.postings(filter, terms);
  const lists = postings.lists
    .map((l) => ({
      term: l.term,
      df: l.df,
      postings: [...Array(l.count).keys()]
        .filter((p) => postings.admits(l.docs[p]!))
        .map((p) => ({
          item: postings.itemId(l.docs[p]!),
          length: postings.docLength(l.docs[p]!),
          title: fieldTf(l.fields[p]!, 0),
          body: fieldTf(l.fields[p]!, 1),
          other: fieldTf(l.fields[p]!, 2),
          positions: [...l.positions.subarray(l.posStart[p]!, l.posStart[p + 1]!)],
        }))
        .sort((a, b) => (a.item < b.item ? -1 : 1)),
    }))
    .filter((l) => l.df > 0)
    .sort((a, b) => (a.term < b.term ? -1 : 1));
  const matches = await read.entityMatches(filter, keys);
  const entities = matches.entities
    .filter((e) => e.itemCount > 0)
    .map((e) => ({
      key: e.key,
      category: e.category,
      itemCount: e.itemCount,
      mentions: [...Array(e.count).keys()]
        .filter((m) => matches.admits(e.docs[m]!))
        .map((m) => ({ itemId: matches.itemId(e.docs[m]!), confidence: typeof e.confidence === 'number' ? e.confidence : e.confidence[m]! }))
        .sort((a, b) => (a.itemId < b.itemId ? -1 : 1)),
    }))
    .sort((a, b) => (a.key + a.category < b.key + b.category ? -1 : 1));
  const rows = [...(await read.poolRows(filter, ids)).values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  // Every id at its position: an unknown one as null, a commit with the pull request it belongs to.
  const changes = (await read.changeRows(filter.workspaceId, ids)).map((r) => (r ? { id: r.id, type: r.type, occurredAt: r.occurredAt, pr: r.pr ?? null } : null));
  // Ordinals given as hints change nothing, whether right (the postings') or wrong (any other number).
  const ordinals = new Map(postings.lists.flatMap((l) => Array.from(l.docs.subarray(0, l.count), (doc) => [postings.itemId(doc), doc] as const)));
  for (const hints of [ids.map((id) => ordinals.get(id) ?? -1), ids.map((_, i) => i), ids.map((_, i) => ids.length - 1 - i)]) {
    expect(await read.changeRows(filter.workspaceId, ids, hints)).toEqual(await read.changeRows(filter.workspaceId, ids));
  }
  const stats = await read.stats(filter.workspaceId);
  // A result's entities, in the order it lists them.
  const itemEntities = [...(await read.itemEntities(filter.workspaceId, ids))].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  // The re-cluster's read: an item's mentions of some categories, in (category, key) order, with document frequencies.
  const mentions = [...(await read.itemMentions(filter.workspaceId, ids, ['keyword', 'language', 'file']))].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return { documents: postings.documents, avgLength: Number(postings.avgLength.toFixed(6)), lists, entities, rows, changes, statsDocs: stats.documents, itemEntities, mentions };
}

describe.each(databaseBackends())('search read model on $name: the in-memory index answers as SQL does', ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDatabase(url);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('after loading, after new items, updates and deletes, and under every filter', async () => {
    const ws = await testWorkspace(db, 'readmodel');
    const other = await testWorkspace(db, 'readmodel-other');
    const p = `rm${randomSuffix()}`;
    const sql = createSqlReadModel(db);
    const ids: string[] = [];
    const docs: Doc[] = [
      { n: 1, title: 'fix decorators printer', body: 'decorators before export keep their comments', files: 'src/printer decorators', actors: ['alice'], entities: [
        // Ties in confidence: the rarer entity first (src/printer.js: one item), then by key (decorators before yaml).
        { category: 'language', key: 'yaml', confidence: 0.9 },
        { category: 'keyword', key: 'decorators', confidence: 0.9 },
        { category: 'file', key: 'src/printer.js', confidence: 0.9 },
        { category: 'person', key: 'alice', confidence: 0.95 },
      ] },
      { n: 2, type: 'commit', title: 'fix decorators', body: 'squash of the decorators fix', actors: ['bob'], at: '2025-06-01T00:00:00Z', entities: [{ category: 'keyword', key: 'decorators', confidence: 0.6 }] },
      { n: 3, title: 'yaml comments lost', body: 'comments in yaml front matter were lost lost lost', actors: ['carol'], entities: [{ category: 'language', key: 'yaml', confidence: 1 }] },
    ];
    for (const d of docs) ids.push(await write(db, ws, d, p));
    await write(db, other, { n: 9, title: 'decorators elsewhere', body: 'another workspace' }, p);
    // The commit belongs to two pull requests: a pool reads the lower id, and the other once that one is deleted.
    const commitOf = (pr: string) => ({ sourceId: pr, targetId: ids[1]!, type: 'commit_pr', linkingKey: 'sha', confidence: 1 });
    await db.transaction((tx) => replaceItemEdges(tx, { workspaceId: ws, itemId: ids[1]!, edges: [commitOf(ids[2]!), commitOf(ids[0]!)] }));

    // Loaded from what is already there.
    const memory = createMemoryReadModel(db, sql);
    expect(await memory.loaded()).toBe(true);
    // A read issued while the model loads waits for it rather than reading SQL (at 100k items a SQL
    // read held the database for seconds, and the load queued behind them).
    const noSql = new Proxy(sql, { get: (_t, name) => () => Promise.reject(new Error(`SQL read ${String(name)} while loading`)) });
    const loading = createMemoryReadModel(db, noSql);
    expect(await loading.stats(ws)).toEqual(await memory.stats(ws));
    await loading.close();
    const terms = ['decorators', 'fix', 'comments', 'yaml', 'lost', 'printer', 'missing'];
    const keys = ['decorators', 'yaml', 'nothing'];
    const filters: ItemFilter[] = [
      { workspaceId: ws },
      { workspaceId: ws, types: ['commit'] },
      { workspaceId: ws, actorNames: ['alice', 'carol'] },
      { workspaceId: ws, from: '2025-12-01T00:00:00Z' },
      { workspaceId: ws, excludeItemIds: [ids[0]!] },
    ];
    // `countsKept`: the SQL model reads document frequencies from counters the indexer keeps; a raw delete
    // (as a cascade does) leaves them behind, while the in-memory index counts what is there.
    const compare = async (label: string, countsKept = true) => {
      const counts = (x: Awaited<ReturnType<typeof snapshot>>) =>
        countsKept ? x : { ...x, lists: x.lists.filter((l) => l.postings.length > 0).map((l) => ({ ...l, df: 0 })), entities: x.entities.map((e) => ({ ...e, itemCount: 0 })), itemEntities: x.itemEntities.map(([id, es]) => [id, [...es].sort((a, b) => (a.key < b.key ? -1 : 1))] as const), mentions: x.mentions.map(([id, ms]) => [id, ms.map((m) => ({ ...m, df: 0 }))] as const) };
      for (const filter of filters) {
        const expected = await snapshot(createSqlReadModel(db), filter, terms, keys, [...ids, 'nope']);
        expect(counts(await snapshot(memory, filter, terms, keys, [...ids, 'nope'])), `${label} ${JSON.stringify(filter)}`).toEqual(counts(expected));
      }
    };
    await compare('loaded');
    const first = await snapshot(memory, { workspaceId: ws }, terms, keys, ids);
    expect(first.lists.find((l) => l.term === 'decorators')?.postings.map((x) => x.item)).toEqual([ids[0], ids[1]]);
    expect(first.changes.filter((c) => c?.pr).map((c) => [c!.id, c!.pr])).toEqual([[ids[1], ids[0]]]);
    expect(first.itemEntities[0]![1].map((e) => e.key)).toEqual(['alice', 'src/printer.js', 'decorators', 'yaml']);
    // Persons left out, the rest by category then key, each entity's items counted.
    expect(first.mentions[0]).toEqual([ids[0], [
      { category: 'file', key: 'src/printer.js', confidence: 0.9, df: 1 },
      { category: 'keyword', key: 'decorators', confidence: 0.9, df: 2 },
      { category: 'language', key: 'yaml', confidence: 0.9, df: 2 },
    ]]);

    // A new item, then an update that changes its words, are read on the next read.
    ids.push(await write(db, ws, { n: 4, title: 'markdown lists', body: 'nested lists in markdown', entities: [{ category: 'language', key: 'markdown', confidence: 1 }] }, p));
    await compare('after an insert');
    await write(db, ws, { n: 4, title: 'markdown decorators', body: 'decorators in markdown code', entities: [{ category: 'keyword', key: 'decorators', confidence: 0.5 }] }, p);
    await compare('after an update');
    const updated = await snapshot(memory, { workspaceId: ws }, ['lists', 'decorators'], keys, ids);
    expect(updated.lists.map((l) => l.term)).toEqual(['decorators']);
    expect(updated.entities.find((e) => e.key === 'decorators')?.itemCount).toBe(3);

    // A deleted item leaves every read, its change links too.
    await db.query('DELETE FROM items WHERE id = $1', [ids[0]]);
    await compare('after a delete', false);
    const afterDelete = await snapshot(memory, { workspaceId: ws }, ['decorators'], ['decorators'], ids);
    expect(afterDelete.lists[0]!.df).toBe(2);
    expect(afterDelete.entities[0]!.itemCount).toBe(2);
    expect((await memory.changeRows(ws, ids)).flatMap((r) => (r?.pr ? [[r.id, r.pr]] : []))).toEqual([[ids[1], ids[2]]]);
    expect((await memory.stats(ws)).documents).toBe(3);
    await memory.close();
  });

  it('follows writes in the background, so the first read after an import does not catch up the whole import', async () => {
    const ws = await testWorkspace(db, 'readmodel-follow');
    const p = `follow${randomSuffix()}`;
    let catchUps = 0;
    // Catch-ups that read changed items' rows: by number on the embedded database, by id on a Postgres
    // server (where a read's own catch-up is one statement that finds whether anything changed).
    const counted = new Proxy(db, {
      get(target, key) {
        if (key === 'query') {
          return (sql: string, params?: unknown[]) => {
            if (/AS terms FROM items WHERE (change_seq > \$1|id = ANY)/.test(sql)) catchUps++;
            return target.query(sql, params);
          };
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const memory = createMemoryReadModel(counted, createSqlReadModel(db), { followMs: 20, maxStalenessMs: 25 });
    expect(await memory.loaded()).toBe(true);
    // Written with no read in between, as an import nobody searches during.
    const id = await write(counted, ws, { n: 1, title: 'imported while nobody searched', body: 'followed in the background' }, p);
    for (let waited = 0; catchUps === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(catchUps).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = catchUps;
    const read = await memory.postings({ workspaceId: ws }, ['followed']);
    expect(read.lists[0]?.count).toBe(1);
    expect(read.itemId(read.lists[0]!.docs[0]!)).toBe(id);
    expect(catchUps).toBe(before);
    await memory.close();
  });

  it('answers from the index it has while a transaction is open, instead of waiting for the commit', async () => {
    const ws = await testWorkspace(db, 'readmodel-open-tx');
    const p = `opentx${randomSuffix()}`;
    const memory = createMemoryReadModel(db, createSqlReadModel(db), { followMs: 0, maxStalenessMs: 25 });
    expect(await memory.loaded()).toBe(true);
    const count = async () => (await memory.postings({ workspaceId: ws }, ['steady'])).lists[0]?.count ?? 0;
    await write(db, ws, { n: 1, title: 'committed first', body: 'steady' }, p);
    // No transaction open: a read after a write sees it.
    expect(await count()).toBe(1);
    await write(db, ws, { n: 2, title: 'committed second', body: 'steady' }, p);
    // An import's batch holds a transaction open. On the embedded database the catch-up (committed rows
    // only) cannot run before it ends, and a read waited for all of it; now it answers meanwhile. The
    // transaction is released only once that read has answered: a read that waits for the commit never does.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const batch = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      opened();
      await held;
    });
    await open;
    const during = await count();
    release();
    await batch;
    expect(during).toBeGreaterThanOrEqual(1);
    // Once it has committed, the next read has every earlier write again.
    expect(await count()).toBe(2);
    await memory.close();
  });

  it('follows writes from other processes, a change committed after a later-numbered one included', async () => {
    if (db.kind !== 'postgres') return;
    // The reader has its own connections, as an api process beside separate workers: it learns of writes
    // from the feed alone (this process's write counter never moves).
    const reader = await openTestDatabase(url);
    const ws = await testWorkspace(db, 'readmodel-processes');
    // Writers of one workspace wait for each other on its term counters: the later-numbered write is another workspace's.
    const other = await testWorkspace(db, 'readmodel-processes-other');
    const p = `proc${randomSuffix()}`;
    /** Writes a document in a transaction held open until `commit` is called. */
    const held = async (n: number, title: string) => {
      let commit!: () => void;
      const gate = new Promise<void>((resolve) => (commit = resolve));
      let written!: () => void;
      const wrote = new Promise<void>((resolve) => (written = resolve));
      const slow = { transaction: <T,>(fn: (tx: Queryable) => Promise<T>) => db.transaction(async (tx) => { const r = await fn(tx); written(); await gate; return r; }) } as unknown as Db;
      const done = write(slow, ws, { n, title, body: 'across processes' }, p);
      await wrote;
      return { commit: async () => { commit(); await done; } };
    };
    const items = async (model: SearchReadModel, workspaceId = ws) => {
      const read = await model.postings({ workspaceId }, ['processes']);
      const list = read.lists[0];
      return list ? [...Array(list.count).keys()].filter((i) => read.admits(list.docs[i]!)).map((i) => read.itemId(list.docs[i]!)).sort() : [];
    };
    try {
      // In progress while the model loads: found once it commits.
      const early = await held(1, 'in progress during the load');
      const memory = createMemoryReadModel(reader, createSqlReadModel(reader), { followMs: 0 });
      expect(await memory.loaded()).toBe(true);
      expect(await items(memory)).toEqual([]);
      await early.commit();
      expect(await items(memory)).toEqual([`${p}-1`]);

      // Numbered first, committed last: the reader has passed its number by then.
      const slow = await held(2, 'numbered first committed last');
      await write(db, other, { n: 3, title: 'numbered second committed first', body: 'across processes' }, p);
      expect(await items(memory, other)).toEqual([`${p}-3`]);
      expect(await items(memory)).toEqual([`${p}-1`]);
      await slow.commit();
      expect(await items(memory)).toEqual([`${p}-1`, `${p}-2`]);

      await db.query('DELETE FROM items WHERE id = $1', [`${p}-2`]);
      expect(await items(memory)).toEqual([`${p}-1`]);
      await memory.close();
    } finally {
      await reader.close();
    }
  });

  it('reads a change feed a page at a time without losing a row, a transaction committed out of number order included', async () => {
    if (db.kind !== 'postgres') return;
    const ws = await testWorkspace(db, 'feed-pages');
    const p = `page${randomSuffix()}`;
    const start = await feedStart(db, ['SELECT max(change_seq) FROM items', 'SELECT max(change_seq) FROM item_tombstones']);
    const ids: string[] = [];
    for (let n = 0; n < 7; n++) ids.push(await write(db, ws, { n, title: `paged ${n}`, body: 'feed pages' }, p));
    await db.query('DELETE FROM items WHERE id = $1', [ids[3]]);
    const seen = new Set<string>();
    const gone = new Set<string>();
    let position = start;
    let statements = 0;
    for (let more = true; more; statements++) {
      const changes = await changesSince(
        db,
        position,
        { changed: { from: 'items', columns: 'id, change_seq', where: 'workspace_id = $6' }, gone: { from: 'item_tombstones', columns: 'change_seq, item_id', where: 'workspace_id = $6' } },
        { params: [ws], page: 2 },
      );
      for (const r of changes.rows.changed) seen.add(String(r.id));
      for (const r of changes.rows.gone) gone.add(String(r.item_id));
      position = changes.next;
      more = changes.more;
    }
    expect(statements).toBeGreaterThan(2);
    expect([...seen].sort()).toEqual(ids.filter((_, i) => i !== 3).sort());
    expect([...gone]).toEqual([ids[3]]);
    // Nothing new: one statement, nothing read.
    const idle = await changesSince(db, position, { changed: { from: 'items', columns: 'id, change_seq', where: 'workspace_id = $6' } }, { params: [ws], page: 2 });
    expect(idle.rows.changed).toEqual([]);
    expect(idle.more).toBe(false);
  });

  it('reads one state of the index within consistentReads (one freshness check a search), and every earlier write', async () => {
    const ws = await testWorkspace(db, 'readmodel-consistent');
    const p = `cons${randomSuffix()}`;
    const memory = createMemoryReadModel(db, createSqlReadModel(db), { followMs: 0 });
    expect(await memory.loaded()).toBe(true);
    const count = async () => (await memory.postings({ workspaceId: ws }, ['consistent'])).lists[0]?.count ?? 0;
    await write(db, ws, { n: 1, title: 'before the search', body: 'consistent' }, p);
    const [first, second] = await consistentReads(async () => {
      const before = await count();
      await write(db, ws, { n: 2, title: 'during the search', body: 'consistent' }, p);
      return [before, await count()];
    });
    // The write committed before the search is seen; the one made during it is not, until the next search.
    expect([first, second]).toEqual([1, 1]);
    expect(await consistentReads(count)).toBe(2);
    await memory.close();
  });

  it('re-reads an item re-indexed many times without growing what a search reads', async () => {
    const ws = await testWorkspace(db, 'readmodel-churn');
    const p = `churn${randomSuffix()}`;
    const sql = createSqlReadModel(db);
    const memory = createMemoryReadModel(db, sql);
    expect(await memory.loaded()).toBe(true);
    // A second workspace re-indexed in the same catch-ups: each workspace's lists compact by its own documents.
    const other = await testWorkspace(db, 'readmodel-churn-other');
    await write(db, other, { n: 2, title: 'release steady', body: 'a release that stays' }, p);
    for (let round = 0; round < 80; round++) {
      // Twice a round, so the two workspaces' live documents sit at different ordinals; first, so its
      // workspace comes first in each catch-up page.
      await write(db, other, { n: 3, title: `release other ${round}`, body: `other release ${round}` }, p);
      await write(db, other, { n: 3, title: `release other ${round} again`, body: `other release ${round}` }, p);
      await write(db, ws, { n: 1, title: `release ${round}`, body: `notes for release ${round} release` }, p);
      if (round % 40 === 39) await memory.refresh();
    }
    expect(await snapshot(memory, { workspaceId: other }, ['release', 'steady', 'other'], [], [])).toEqual(await snapshot(createSqlReadModel(db), { workspaceId: other }, ['release', 'steady', 'other'], [], []));
    expect(await snapshot(memory, { workspaceId: ws }, ['release', 'notes', '79'], [], [])).toEqual(await snapshot(createSqlReadModel(db), { workspaceId: ws }, ['release', 'notes', '79'], [], []));
    const read = await memory.postings({ workspaceId: ws }, ['release']);
    const list = read.lists[0]!;
    expect(list.df).toBe(1);
    // Replaced versions are dropped from the list once they are most of it.
    expect(list.count).toBeLessThan(40);
    expect(await snapshot(memory, { workspaceId: ws }, ['release', 'notes', '79'], [], [])).toEqual(await snapshot(createSqlReadModel(db), { workspaceId: ws }, ['release', 'notes', '79'], [], []));
    await memory.close();
  });
  it("reads people's items as SQL does: newest first under every filter, after new items, a merge of two people and deletes", async () => {
    const ws = await testWorkspace(db, 'readmodel-people');
    const p = `people${randomSuffix()}`;
    const rand = seeded(7);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const actors = Array.from({ length: 5 }, (_, i) => `${p}-actor-${i}`);
    for (const id of actors) await insertActor(db, { id, workspaceId: ws, displayName: id, isBot: false });
    // Few distinct dates, roles and people, so ties on the date and on the item (across people) are common.
    const dates = ['2024-01-01T00:00:00Z', '2025-03-01T00:00:00Z', '2025-06-01T00:00:00Z', '2026-01-01T00:00:00Z'];
    const roles = ['author', 'reviewer', 'commenter'];
    const doc = (n: number, version = 0): Doc => {
      const played = new Map<string, { actorId: string; role: string }>();
      for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) {
        const r = { actorId: pick(actors), role: pick(roles) };
        played.set(`${r.actorId}/${r.role}`, r);
      }
      return { n, type: pick(['pull_request', 'commit']), title: `change ${n} v${version}`, body: 'people and their work', at: pick(dates), roles: [...played.values()] };
    };
    const ids: string[] = [];
    for (let n = 0; n < 40; n++) ids.push(await write(db, ws, doc(n), p));
    const sql = createSqlReadModel(db);
    const memory = createMemoryReadModel(db, sql);
    expect(await memory.loaded()).toBe(true);

    const compare = async (label: string, people: string[]) => {
      const filters: ItemFilter[] = [{ workspaceId: ws }, { workspaceId: ws, types: ['commit'] }, { workspaceId: ws, from: dates[2] }, { workspaceId: ws, excludeItemIds: ids.slice(0, 10) }];
      for (const filter of filters) {
        for (const who of [people.slice(0, 1), people.slice(0, 3), [...people, 'nobody']]) {
          for (const limit of [1, 7, 200]) {
            const expected = await sql.itemsOfActors(filter, who, limit);
            expect(await memory.itemsOfActors(filter, who, limit), `${label} ${JSON.stringify({ filter, who, limit })}`).toEqual(expected);
          }
        }
      }
      const sorted = (m: Map<string, { actorId: string; role: string }[]>) =>
        [...m].map(([id, rows]) => [id, [...rows].sort((a, b) => (a.actorId + a.role < b.actorId + b.role ? -1 : 1))] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
      expect(sorted(await memory.actorRoles(ws, [...ids, 'nope'])), label).toEqual(sorted(await sql.actorRoles(ws, [...ids, 'nope'])));
      // Every row of each person, as the expertise pass reads them (old versions and deleted items left out).
      const rows = (list: { actorId: string; itemId: string; role: string }[]) => list.map((r) => `${r.actorId} ${r.itemId} ${r.role}`).sort();
      const all = rows(await sql.rolesOfActors(ws, [...people, 'nobody']));
      expect(all.length, label).toBeGreaterThan(0);
      expect(rows(await memory.rolesOfActors(ws, [...people, 'nobody'])), label).toEqual(all);
      expect(rows(await memory.rolesOfActors(ws, people.slice(0, 1))), label).toEqual(all.filter((r) => r.startsWith(`${people[0]} `)));
      // Each person's distinct items among those rows, as an expertise pass counts a bot's without reading them.
      const itemsOf = new Map<string, Set<string>>();
      for (const r of await sql.rolesOfActors(ws, people)) (itemsOf.get(r.actorId) ?? itemsOf.set(r.actorId, new Set()).get(r.actorId)!).add(r.itemId);
      const counted = [...itemsOf].map(([actor, items]) => `${actor} ${items.size}`).sort();
      const counts = (m: Map<string, number>) => [...m].map(([actor, n]) => `${actor} ${n}`).sort();
      expect(counted.length, label).toBeGreaterThan(0);
      expect(counts(await sql.actorItemCounts(ws, [...people, 'nobody'])), label).toEqual(counted);
      expect(counts(await memory.actorItemCounts(ws, [...people, 'nobody'])), label).toEqual(counted);
    };
    await compare('loaded', actors);
    const newest = await memory.itemsOfActors({ workspaceId: ws }, actors, 200);
    expect(newest.length).toBeGreaterThan(40);
    expect(newest[0]!.id).toBeDefined();

    // New items, and items whose people changed.
    for (let n = 40; n < 50; n++) ids.push(await write(db, ws, doc(n), p));
    for (let n = 0; n < 10; n++) await write(db, ws, doc(n, 1), p);
    await compare('after new and changed items', actors);

    // Two people found to be one: the survivor has both's items, and the other none.
    const [survivor, merged] = [actors[0]!, actors[1]!];
    const before = (await memory.itemsOfActors({ workspaceId: ws }, [merged], 200)).length;
    expect(before).toBeGreaterThan(0);
    await db.transaction((tx) => mergeActors(tx, survivor, [merged]));
    expect(await memory.itemsOfActors({ workspaceId: ws }, [merged], 200)).toEqual([]);
    await compare('after a merge', actors.slice(0).filter((a) => a !== merged));

    await db.query('DELETE FROM items WHERE id = ANY($1::text[])', [ids.slice(20, 30)]);
    await compare('after deletes', actors);
    expect((await memory.itemsOfActors({ workspaceId: ws }, actors, 200)).some((r) => ids.slice(20, 30).includes(r.id))).toBe(false);
    await memory.close();
  });
});

/** Small deterministic generator (mulberry32), so a failure repeats. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
