// The batch path of the indexer: many staged events in one embedding call and one transaction, with the
// same guarantees as one at a time (verdicts per item, one bad event failing alone, redelivery after a
// crash changing nothing, items of one batch linking to each other). On PGlite and, when DATABASE_URL is
// set, on server Postgres.
import type { SourceEventInput } from '@engram/contracts';
import { PermanentJobError } from '@engram/queue';
import { createPgVectorStore, getStagedEvent, type Db, type VectorStore } from '@engram/stores';
import { databaseBackends, openTestDatabase, testWorkspace } from '@engram/stores/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexer, itemIdOf, type EmbeddingProvider, type Indexer, type IndexOutcome } from '../src/index.js';
import { countingEmbedder, createHashEmbedder, type CountingEmbedder } from '../src/testing/index.js';
import { commit, linearIssue, pullRequest, sha, stage } from './helpers.js';

const idOf = (ws: string, e: SourceEventInput) => itemIdOf(ws, { type: e.type, source: e.source, externalId: e.externalId });

/** A small history whose items link to each other: a PR, its squash commit, the issue it fixes, a revert. */
function history(): SourceEventInput[] {
  const merge = sha('b47c4');
  const revert = sha('e7e7');
  return [
    linearIssue('ENG-12', { title: 'Quotes are wrong in JSX attributes', actors: [{ role: 'author', provider: 'linear', name: 'Mona Lisa', email: 'mona@example.com' }] }),
    pullRequest(42, {
      title: 'Fix quotes in JSX',
      body: 'Fixes ENG-12. Touches `src/language-js/print/jsx.js`.',
      files: ['src/language-js/print/jsx.js'],
      refs: [{ key: `commit:${merge}`, relation: 'merged_as', confidence: 1 }],
      actors: [{ role: 'author', provider: 'github', login: 'mona', name: 'Mona Lisa', email: 'mona@example.com' }, { role: 'reviewer', provider: 'github', login: 'alice' }],
    }),
    commit(merge, { title: 'Fix quotes in JSX (#42)', body: '* Fixes ENG-12', files: ['src/language-js/print/jsx.js'], actors: [{ role: 'author', provider: 'github', login: 'mona' }] }),
    commit(revert, {
      title: 'Revert "Fix quotes in JSX (#42)"',
      body: `This reverts commit ${merge}.`,
      occurredAt: '2025-01-12T10:00:00.000Z',
      updatedAt: '2025-01-12T10:00:00.000Z',
      actors: [{ role: 'author', provider: 'github', login: 'alice', name: 'Alice Liddell' }],
    }),
    pullRequest(43, { title: 'Document the JSX quote option', body: 'Follow-up to #42', actors: [{ role: 'author', provider: 'github', login: 'alice' }] }),
  ];
}

/** Everything the indexer wrote for a workspace, with workspace-specific ids replaced by external ids. */
async function snapshot(db: Db, vectors: VectorStore, ws: string) {
  const rows = async <T>(sql: string) => (await db.query<T>(sql, [ws])).rows;
  const ext = new Map((await rows<{ id: string; external_id: string }>('SELECT id, external_id FROM items WHERE workspace_id = $1')).map((r) => [r.id, r.external_id]));
  const x = (id: string) => ext.get(id) ?? id;
  return {
    items: await rows('SELECT external_id, type, title, content, snippet, labels, files, actor_names, content_hash, embedding_hash, lexical_length, search_vector::text AS sv FROM items WHERE workspace_id = $1 ORDER BY external_id'),
    postings: (await rows<{ item_id: string; term: string; dl: number; positions: unknown; weights: unknown }>('SELECT item_id, term, dl, positions::text AS positions, weights::text AS weights FROM postings WHERE workspace_id = $1'))
      .map((p) => `${x(p.item_id)} ${p.term} ${p.dl} ${String(p.positions)} ${String(p.weights)}`)
      .sort(),
    lexicon: await rows('SELECT term, df FROM lexicon WHERE workspace_id = $1 ORDER BY term'),
    entities: await rows('SELECT category, key, item_count FROM entities WHERE workspace_id = $1 ORDER BY category, key'),
    mentions: (await rows<{ item_id: string; category: string; key: string; confidence: number }>(
      'SELECT m.item_id, e.category, e.key, m.confidence FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE m.workspace_id = $1',
    )).map((m) => `${x(m.item_id)} ${m.category}:${m.key} ${m.confidence}`).sort(),
    refs: (await rows<{ item_id: string; key: string; relation: string; confidence: number }>('SELECT item_id, key, relation, confidence FROM item_refs WHERE workspace_id = $1'))
      .map((r) => `${x(r.item_id)} ${r.relation} ${r.key} ${r.confidence}`)
      .sort(),
    actors: (await rows<{ display_name: string; is_bot: boolean; item_count: number; identities: string }>(
      `SELECT a.display_name, a.is_bot, a.item_count, string_agg(i.kind || '=' || i.value, ',' ORDER BY i.kind, i.value) AS identities
       FROM actors a LEFT JOIN actor_identities i ON i.actor_id = a.id WHERE a.workspace_id = $1 GROUP BY a.id ORDER BY 4`,
    )),
    roles: (await rows<{ item_id: string; role: string; display_name: string }>(
      'SELECT ia.item_id, ia.role, a.display_name FROM item_actors ia JOIN actors a ON a.id = ia.actor_id WHERE ia.workspace_id = $1',
    )).map((r) => `${x(r.item_id)} ${r.role} ${r.display_name}`).sort(),
    edges: (await rows<{ source_id: string; target_id: string; type: string; linking_key: string; confidence: number }>(
      'SELECT source_id, target_id, type, linking_key, confidence FROM edges WHERE workspace_id = $1',
    )).map((e) => `${x(e.source_id)} -${e.type}-> ${x(e.target_id)} [${e.linking_key}] ${e.confidence}`).sort(),
    vectors: await vectors.count(ws),
    clustered: Number((await rows<{ n: string }>('SELECT count(*) AS n FROM cluster_members WHERE workspace_id = $1'))[0]?.n ?? 0),
  };
}

/** A database whose `UPDATE source_events` fails while `crash.on`: the process dying before markEvent. */
function crashingBeforeMark(db: Db, crash: { on: boolean }): Db {
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (sql: string, params?: unknown[]) => {
          if (crash.on && /^\s*UPDATE source_events/.test(sql)) return Promise.reject(new Error('simulated crash before markEvent'));
          return target.query(sql, params as never);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.each(databaseBackends())('indexing staged events in batches ($name)', ({ url }) => {
  let db: Db;
  let vectors: VectorStore;
  let embedder: CountingEmbedder;
  let calls: number;
  let indexer: Indexer;
  const make = (over: { db?: Db; embedder?: EmbeddingProvider; batchSize?: number } = {}) =>
    createIndexer({ db: over.db ?? db, vectors, embedder: over.embedder ?? embedder, batchSize: over.batchSize ?? 64 });

  beforeAll(async () => {
    db = await openTestDatabase(url);
    vectors = await createPgVectorStore(db);
    const inner = createHashEmbedder();
    calls = 0;
    embedder = countingEmbedder({ ...inner, model: inner.model, dimensions: inner.dimensions, embed: (texts) => (calls++, inner.embed(texts)) });
    await vectors.ensureCollection({ model: embedder.model, dimensions: embedder.dimensions });
    indexer = make();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('settles new, updated, unchanged, stale, superseded, invalid and missing events of one batch each on its own', async () => {
    const ws = await testWorkspace(db);
    const updated = pullRequest(1, { title: 'First title' });
    const unchanged = pullRequest(2, { title: 'Never edited' });
    const newer = pullRequest(3, { title: 'Edited title', updatedAt: '2025-03-01T00:00:00.000Z' });
    const [updatedV1, unchangedId, newerId] = await stage(db, ws, [updated, unchanged, newer]);
    for (const r of await indexer.indexEvents([updatedV1!, unchangedId!, newerId!])) expect(r).toMatchObject({ outcome: { status: 'indexed' } });

    const updatedV2 = { ...updated, title: 'Second title', updatedAt: '2025-02-01T00:00:00.000Z' };
    const olderOf3 = pullRequest(3, { title: 'Title before the edit', updatedAt: '2025-01-20T00:00:00.000Z' });
    const fresh = commit(sha('f1e5'), { title: 'Land the first change (#1)' });
    const twiceA = pullRequest(5, { title: 'Draft', updatedAt: '2025-01-10T00:00:00.000Z' });
    const twiceB = pullRequest(5, { title: 'Ready for review', updatedAt: '2025-01-11T00:00:00.000Z' });
    const [v2Id, olderId, freshId, twiceBId, twiceAId] = await stage(db, ws, [updatedV2, olderOf3, fresh, twiceB, twiceA]);
    await db.query(
      `INSERT INTO source_events (id, workspace_id, source, external_id, content_hash, event) VALUES ('evt_broken_' || $1, $1, 'github', 'broken', 'x', '{"type":"pull_request"}')`,
      [ws],
    );
    const brokenId = `evt_broken_${ws}`;
    const before = calls;
    const results = await indexer.indexEvents([v2Id!, unchangedId!, olderId!, freshId!, brokenId, twiceBId!, twiceAId!, 'evt_missing']);
    const byId = new Map(results.map((r) => [r.eventId, r]));
    const status = (id: string) => {
      const r = byId.get(id)!;
      return 'outcome' in r ? r.outcome.status : 'error';
    };
    expect([v2Id, unchangedId, olderId, freshId, brokenId, twiceBId, twiceAId, 'evt_missing'].map((id) => status(id!))).toEqual([
      'indexed', 'unchanged', 'stale', 'indexed', 'error', 'indexed', 'stale', 'missing',
    ]);
    const broken = byId.get(brokenId)!;
    expect('error' in broken && broken.error).toBeInstanceOf(PermanentJobError);
    expect(calls - before).toBe(1); // one embedding call for the whole batch

    const stagedStatus = async (id: string) => (await getStagedEvent(db, id))?.status;
    expect(await Promise.all([v2Id!, unchangedId!, olderId!, freshId!, brokenId, twiceBId!, twiceAId!].map(stagedStatus))).toEqual([
      'indexed', 'indexed', 'skipped', 'indexed', 'failed', 'indexed', 'skipped',
    ]);
    const title = async (e: SourceEventInput) => (await db.query<{ title: string }>('SELECT title FROM items WHERE id = $1', [idOf(ws, e)])).rows[0]?.title;
    expect(await Promise.all([updated, newer, fresh, twiceA].map(title))).toEqual(['Second title', 'Edited title', 'Land the first change (#1)', 'Ready for review']);
    // The new commit's squash suffix (#1) found the pull request updated in the same batch.
    const edges = await db.query<{ source_id: string; target_id: string }>('SELECT source_id, target_id FROM edges WHERE workspace_id = $1', [ws]);
    expect(edges.rows.map((e) => [e.source_id, e.target_id].sort())).toEqual([[idOf(ws, fresh), idOf(ws, updated)].sort()]);
  });

  it('writes the same rows for a history indexed as one batch as for the same events indexed one at a time', async () => {
    const events = history();
    const oneByOne = await testWorkspace(db);
    const single = make({ batchSize: 1 });
    for (const id of await stage(db, oneByOne, events)) expect((await single.indexEvent(id)).status).toBe('indexed');
    const batched = await testWorkspace(db);
    const results = await indexer.indexEvents(await stage(db, batched, events));
    expect(results.map((r) => ('outcome' in r ? r.outcome.status : r.error.message))).toEqual(events.map(() => 'indexed'));

    const a = await snapshot(db, vectors, oneByOne);
    const b = await snapshot(db, vectors, batched);
    expect(b.edges.length).toBeGreaterThanOrEqual(4);
    expect(b.edges.some((e) => e.includes('-reverts->'))).toBe(true);
    expect(b.actors.some((r) => (r as { identities: string }).identities.includes('login:linear') || (r as { identities: string }).identities.includes('email=mona@example.com'))).toBe(true);
    expect(b).toEqual(a);
  });

  it('links a change that arrives after a revert by its title only as far as the title is rare', async () => {
    // A revert that names only a title links to the earlier items of its type holding that title, when at most
    // TITLE_KEY_LIMIT do. Four "Update dependencies" commits, then the revert: it links to all four. A fifth
    // such commit arriving later makes five holders, so the revert must not link to it: the batch reads the
    // title's other holders because something refers to that title.
    const ws = await testWorkspace(db);
    const day = (d: number) => `2025-02-0${d}T10:00:00.000Z`;
    const bump = (n: number, d: number) => commit(sha(`d0${n}`), { title: 'Update dependencies', occurredAt: day(d), updatedAt: day(d) });
    const revert = commit(sha('e0e0'), { title: 'Revert "Update dependencies"', body: 'It broke the build.', occurredAt: day(9), updatedAt: day(9) });
    const first = await indexer.indexEvents(await stage(db, ws, [bump(1, 1), bump(2, 2), bump(3, 3), bump(4, 4), revert]));
    expect(first.every((r) => 'outcome' in r && r.outcome.status === 'indexed')).toBe(true);
    const reverts = async () => (await snapshot(db, vectors, ws)).edges.filter((e) => e.includes('-reverts->'));
    expect(await reverts()).toHaveLength(4);
    const late = await indexer.indexEvents(await stage(db, ws, [bump(5, 5)]));
    expect(late.every((r) => 'outcome' in r && r.outcome.status === 'indexed')).toBe(true);
    expect(await reverts()).toHaveLength(4);
    expect((await reverts()).some((e) => e.includes(sha('d05')))).toBe(false);
  });

  it('gathers index.event calls made together into one batch', async () => {
    const ws = await testWorkspace(db);
    const ids = await stage(db, ws, Array.from({ length: 12 }, (_, i) => pullRequest(100 + i, { title: `Concurrent change ${i}` })));
    const before = calls;
    const outcomes: IndexOutcome[] = await Promise.all(ids.map((id) => indexer.indexEvent(id)));
    expect(outcomes.map((o) => o.status)).toEqual(ids.map(() => 'indexed'));
    expect(calls - before).toBeLessThanOrEqual(2);
  });

  it('a batch redelivered after a crash before markEvent leaves identical rows, and settles its events', async () => {
    const ws = await testWorkspace(db);
    const ids = await stage(db, ws, history());
    const crash = { on: true };
    const crashing = make({ db: crashingBeforeMark(db, crash) });
    const first = await crashing.indexEvents(ids);
    expect(first.every((r) => 'error' in r)).toBe(true);
    expect(await Promise.all(ids.map(async (id) => (await getStagedEvent(db, id))?.status))).toEqual(ids.map(() => 'pending'));
    const afterCrash = await snapshot(db, vectors, ws);
    expect(afterCrash.items).toHaveLength(ids.length);

    crash.on = false;
    const again = await make().indexEvents(ids);
    expect(again.map((r) => ('outcome' in r ? r.outcome.status : 'error'))).toEqual(ids.map(() => 'unchanged'));
    expect(await snapshot(db, vectors, ws)).toEqual(afterCrash);
    expect(await Promise.all(ids.map(async (id) => (await getStagedEvent(db, id))?.status))).toEqual(ids.map(() => 'skipped'));
  });

  it('a batch whose vectors failed to store is re-embedded on redelivery, to the same rows as a clean run', async () => {
    const events = history();
    const clean = await testWorkspace(db);
    await indexer.indexEvents(await stage(db, clean, events));
    const ws = await testWorkspace(db);
    const ids = await stage(db, ws, events);
    let fail = true;
    const flaky: VectorStore = new Proxy(vectors, {
      get(target, prop, receiver) {
        if (prop === 'upsert' && fail) return () => Promise.reject(new Error('vector store unavailable'));
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const failing = createIndexer({ db, vectors: flaky, embedder, batchSize: 64 });
    expect((await failing.indexEvents(ids)).every((r) => 'error' in r)).toBe(true);
    expect((await snapshot(db, vectors, ws)).vectors).toBe(0);
    fail = false;
    const again = await indexer.indexEvents(ids);
    for (const r of again) expect(r).toMatchObject({ outcome: { status: 'indexed', embedded: true } });
    expect(await snapshot(db, vectors, ws)).toEqual(await snapshot(db, vectors, clean));
  });
});
