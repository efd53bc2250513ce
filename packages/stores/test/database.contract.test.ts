import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceEvent } from '@engram/contracts';
import {
  analyzeStaleTables,
  advanceSyncCursor,
  createApiKey,
  createConnection,
  createEmbeddingCacheStore,
  listClusterCentroids,
  createSecretBox,
  getConnectionWithSecrets,
  getStagedEvent,
  getSyncCursor,
  linkImportEvents,
  getImportProgress,
  markEvent,
  markEvents,
  migrate,
  migrations,
  openDatabase,
  recordWebhookDelivery,
  refreshPlannerStats,
  refreshPlannerStatsByTable,
  replaceItemsEntities,
  replaceLexicalIndex,
  resolveApiKey,
  revokeApiKey,
  stageEvents,
  startSyncCursor,
  upsertImport,
  upsertItem,
  type Db,
  type ItemRow,
} from '../src/index.js';
import { databaseBackends, openTestDatabase, testWorkspace } from '../src/testing/index.js';

const event = (n: number, body = 'body'): SourceEvent => ({
  source: 'github',
  type: 'pull_request',
  externalId: `github:o/r:pull_request:${n}`,
  url: `https://github.com/o/r/pull/${n}`,
  title: `PR ${n}`,
  body,
  occurredAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
  keys: [`pr:o/r#${n}`],
  refs: [],
  actors: [],
  labels: [],
  files: [],
  metadata: {},
});

describe.each(databaseBackends())('database contract on $name', ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDatabase(url);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('applies migrations once: a second run changes nothing', async () => {
    expect(await migrate(db)).toEqual([]);
  });

  it('rolls a failed transaction back completely', async () => {
    const ws = await testWorkspace(db);
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO connections (id, workspace_id, provider, credentials_enc) VALUES ('con_rollback_' || $1, $1, 'github', 'x')", [ws]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const res = await db.query('SELECT 1 FROM connections WHERE workspace_id = $1', [ws]);
    expect(res.rows).toHaveLength(0);
  });

  it('gives the embedded planner table statistics (PGlite has no autovacuum); leaves a server to its autovacuum', async () => {
    const ws = await testWorkspace(db);
    await stageEvents(db, { workspaceId: ws, events: Array.from({ length: 50 }, (_, i) => event(9000 + i)) });
    const rows = async () => Number((await db.query<{ n: number }>("SELECT reltuples AS n FROM pg_class WHERE relname = 'source_events'")).rows[0]?.n);
    const before = await rows();
    const ran = await refreshPlannerStats(db);
    expect(ran).toBe(db.kind === 'pglite');
    if (ran) {
      expect(before).toBeLessThan(50);
      expect(await rows()).toBeGreaterThanOrEqual(50);
    }
  });

  it('on the embedded database, analyzes a table only while its statistics are missing or its size has moved since', async () => {
    if (db.kind !== 'pglite') {
      expect(await refreshPlannerStatsByTable(db)).toEqual([]);
      return;
    }
    const table = `stale_pages_${Math.random().toString(36).slice(2, 10)}`;
    await db.exec(`CREATE TABLE ${table} (id text NOT NULL, v int NOT NULL)`);
    try {
      const insert = (from: number, to: number) => db.query(`INSERT INTO ${table} SELECT 'item_' || g, g FROM generate_series(${from}, ${to}) g`);
      const estimate = async () => Number((await db.query<{ n: number }>('SELECT reltuples AS n FROM pg_class WHERE relname = $1', [table])).rows[0]?.n);
      await insert(1, 20_000);
      // Never analyzed: statistics now.
      expect(await refreshPlannerStatsByTable(db)).toContain(`public.${table}`);
      expect(await estimate()).toBe(20_000);
      // Unchanged, or grown by a little: left as they are (the planner scales them by the table's size).
      expect(await refreshPlannerStatsByTable(db)).not.toContain(`public.${table}`);
      await insert(20_001, 21_000);
      expect(await refreshPlannerStatsByTable(db)).not.toContain(`public.${table}`);
      // Grown by half: analyzed again. A table named to vacuum is analyzed every time.
      await insert(21_001, 31_000);
      expect(await refreshPlannerStatsByTable(db)).toContain(`public.${table}`);
      expect(await estimate()).toBe(31_000);
      expect(await refreshPlannerStatsByTable(db, undefined, [table])).toContain(`public.${table}`);
    } finally {
      await db.exec(`DROP TABLE ${table}`);
    }
  });

  it('analyzes a server table with rows but no statistics, so a read by a list of ids takes its index', async () => {
    if (db.kind !== 'postgres') {
      expect(await analyzeStaleTables(db)).toEqual([]);
      return;
    }
    const table = `stale_stats_${Math.random().toString(36).slice(2, 10)}`;
    await db.exec(`CREATE TABLE ${table} (id text NOT NULL, v int NOT NULL); CREATE INDEX ${table}_id ON ${table} (id)`);
    try {
      await db.query(`INSERT INTO ${table} SELECT 'item_' || g, g FROM generate_series(1, 300000) g`);
      // The insert's counts reach pg_stat_user_tables when this backend flushes them.
      for (let i = 0; i < 50; i++) {
        await db.query('SELECT pg_stat_force_next_flush()');
        const seen = await db.query<{ n: number }>('SELECT n_live_tup::int AS n FROM pg_stat_user_tables WHERE relname = $1', [table]);
        if ((seen.rows[0]?.n ?? 0) >= 300000) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const plan = async () =>
        (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT v FROM ${table} WHERE id = ANY($1::text[])`, [Array.from({ length: 200 }, (_, i) => `item_${i * 997}`)])).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      expect(await plan()).toContain(`Seq Scan on ${table}`);
      expect(await analyzeStaleTables(db)).toContain(`public.${table}`);
      expect(await plan()).not.toContain('Seq Scan');
      // Fresh statistics: not analyzed again.
      expect(await analyzeStaleTables(db)).not.toContain(`public.${table}`);
    } finally {
      await db.exec(`DROP TABLE ${table}`);
    }
  });

  it('stores API keys hashed; a key resolves to its workspace until revoked', async () => {
    const ws = await testWorkspace(db);
    const { id, key } = await createApiKey(db, ws);
    const stored = await db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [id]);
    expect(stored.rows[0]!.key_hash).not.toContain(key);
    expect(await resolveApiKey(db, key)).toEqual({ keyId: id, workspaceId: ws });
    expect(await resolveApiKey(db, `${key}x`)).toBeNull();
    await revokeApiKey(db, id);
    expect(await resolveApiKey(db, key)).toBeNull();
  });

  it('encrypts provider credentials at rest and decrypts them for workers', async () => {
    const ws = await testWorkspace(db);
    const box = createSecretBox('a-test-secret-key-of-enough-length');
    const token = 'ghp_supersecrettoken123';
    const conn = await createConnection(db, box, { workspaceId: ws, provider: 'github', config: { repo: 'o/r' }, token, webhookSecret: 'whsec' });
    const raw = await db.query<Record<string, unknown>>('SELECT * FROM connections WHERE id = $1', [conn.id]);
    expect(JSON.stringify(raw.rows[0])).not.toContain(token);
    const full = await getConnectionWithSecrets(db, box, conn.id);
    expect(full?.token).toBe(token);
    expect(full?.webhookSecret).toBe('whsec');
    expect(() => createSecretBox('another-secret-key-entirely').open(raw.rows[0]!.credentials_enc as string)).toThrow();
  });

  it('stages events idempotently and re-stages a changed event as a new version', async () => {
    const ws = await testWorkspace(db);
    const first = await stageEvents(db, { workspaceId: ws, events: [event(1), event(2), event(1)] });
    expect(first.inserted).toBe(2);
    expect(first.ids).toHaveLength(2);
    const again = await stageEvents(db, { workspaceId: ws, events: [event(1), event(2)] });
    expect(again.inserted).toBe(0);
    expect(again.ids.sort()).toEqual(first.ids.sort());
    const changed = await stageEvents(db, { workspaceId: ws, events: [event(1, 'edited body')] });
    expect(changed.inserted).toBe(1);
    const staged = await getStagedEvent(db, changed.ids[0]!);
    expect(staged?.event.body).toBe('edited body');
    expect(staged?.status).toBe('pending');
  });

  it('tracks an import: the same file twice is one import whose progress counts each event once', async () => {
    const ws = await testWorkspace(db);
    const ids: string[] = [];
    for (let round = 0; round < 2; round++) {
      const importId = await upsertImport(db, { workspaceId: ws, provider: 'github', container: 'o/r', fileHash: 'abc', received: 3, invalid: 0, errors: [] });
      const staged = await stageEvents(db, { workspaceId: ws, importId, events: [event(1), event(2), event(3)] });
      await linkImportEvents(db, importId, staged.ids);
      ids.push(importId);
    }
    expect(ids[0]).toBe(ids[1]);
    let progress = await getImportProgress(db, ids[0]!);
    expect(progress).toMatchObject({ events: 3, indexed: 0, pending: 3 });
    const staged = await db.query<{ event_id: string }>('SELECT event_id FROM import_events WHERE import_id = $1', [ids[0]]);
    for (const row of staged.rows) await markEvent(db, row.event_id, 'indexed');
    progress = await getImportProgress(db, ids[0]!);
    expect(progress).toMatchObject({ events: 3, indexed: 3, pending: 0, failed: 0 });
  });

  it("keeps each import's progress equal to a count of its events' statuses through links and marks in any order", async () => {
    const ws = await testWorkspace(db);
    const counted = async (importId: string) =>
      (
        await db.query<{ events: number; indexed: number; failed: number }>(
          `SELECT count(*)::int AS events, (count(*) FILTER (WHERE e.status IN ('indexed', 'skipped')))::int AS indexed, (count(*) FILTER (WHERE e.status = 'failed'))::int AS failed
           FROM import_events ie JOIN source_events e ON e.id = ie.event_id WHERE ie.import_id = $1`,
          [importId],
        )
      ).rows[0]!;
    const same = async (importId: string) => {
      const { events, indexed, failed } = (await getImportProgress(db, importId))!;
      expect({ events, indexed, failed }).toEqual(await counted(importId));
    };
    const first = await upsertImport(db, { workspaceId: ws, provider: 'github', container: 'o/r', fileHash: 'one', received: 4, invalid: 0, errors: [] });
    const a = await stageEvents(db, { workspaceId: ws, importId: first, events: [10, 11, 12, 13].map((n) => event(n)) });
    await linkImportEvents(db, first, a.ids);
    await markEvents(db, [{ id: a.ids[0]!, status: 'indexed' }, { id: a.ids[1]!, status: 'failed', error: 'no' }, { id: a.ids[2]!, status: 'skipped' }]);
    await same(first);
    // A second file shares two events with the first: one settled before it was linked, one still pending.
    const second = await upsertImport(db, { workspaceId: ws, provider: 'github', container: 'o/r', fileHash: 'two', received: 3, invalid: 0, errors: [] });
    const b = await stageEvents(db, { workspaceId: ws, importId: second, events: [event(10), event(13), event(14)] });
    await linkImportEvents(db, second, b.ids);
    await linkImportEvents(db, second, b.ids);
    expect((await getImportProgress(db, second))!).toMatchObject({ events: 3, indexed: 1, failed: 0, pending: 2 });
    // Marks move each event in every import it is in; a mark that changes nothing moves nothing.
    await markEvents(db, [{ id: a.ids[1]!, status: 'indexed' }, { id: a.ids[3]!, status: 'indexed' }, { id: a.ids[0]!, status: 'indexed' }]);
    await markEvent(db, b.ids[2]!, 'failed', 'gave up');
    await markEvent(db, b.ids[2]!, 'failed', 'gave up again');
    await same(first);
    await same(second);
    expect((await getImportProgress(db, first))!).toMatchObject({ events: 4, indexed: 4, failed: 0, pending: 0 });
    expect((await getImportProgress(db, second))!).toMatchObject({ events: 3, indexed: 2, failed: 1, pending: 0 });
  });

  it('checkpoints a sync cursor page by page and marks the walk done on the last page', async () => {
    const ws = await testWorkspace(db);
    const conn = await createConnection(db, createSecretBox('a-test-secret-key-of-enough-length'), { workspaceId: ws, provider: 'github', config: {}, token: 't' });
    const at = { connectionId: conn.id, stream: 'pull_requests', mode: 'backfill' as const };
    await startSyncCursor(db, { ...at, since: null });
    await advanceSyncCursor(db, { ...at, next: { page: 2 }, items: 100, highWater: '2026-01-01T00:00:00Z' });
    let cursor = await getSyncCursor(db, conn.id, 'pull_requests', 'backfill');
    expect(cursor).toMatchObject({ cursor: { page: 2 }, pages: 1, items: 100, state: 'running' });
    await advanceSyncCursor(db, { ...at, next: null, items: 7, highWater: '2025-01-01T00:00:00Z' });
    cursor = await getSyncCursor(db, conn.id, 'pull_requests', 'backfill');
    expect(cursor).toMatchObject({ cursor: null, pages: 2, items: 107, state: 'done', highWater: '2026-01-01T00:00:00.000Z' });
  });

  it('records a webhook delivery once and recognises a redelivery', async () => {
    const id = `d-${Math.random()}`;
    expect(await recordWebhookDelivery(db, { provider: 'github', deliveryId: id, connectionId: null, event: 'push' })).toBe(true);
    expect(await recordWebhookDelivery(db, { provider: 'github', deliveryId: id, connectionId: null, event: 'push' })).toBe(false);
  });

  it('keeps each item\'s postings equal to its search vector through insert, update, re-tokenizing and delete (none on the embedded database)', async () => {
    const ws = await testWorkspace(db);
    const id = `obs_postings_${ws}`;
    const item: ItemRow = {
      id, workspaceId: ws, connectionId: null, source: 'github', type: 'pull_request', externalId: id, url: `https://x/${id}`,
      title: 'Preserve quotes', content: 'quotes in objects', snippet: '', container: null, state: null, labels: [], files: [],
      actorNames: [], metadata: {}, occurredAt: '2026-01-01T00:00:00Z', sourceUpdatedAt: '2026-01-01T00:00:00Z', contentHash: 'h1',
    };
    // The embedded database's searches read the in-memory index, built from the search vector itself.
    const kept = db.kind === 'postgres';
    const postings = async () =>
      (await db.query<{ term: string; weights: string[] | string; dl: number }>('SELECT term, weights, dl FROM postings WHERE item_id = $1 ORDER BY term', [id])).rows.map(
        (r) => `${r.term}:${String(r.weights).replace(/[{}]/g, '')}:${r.dl}`,
      );
    const expectPostings = async (expected: string[]) => expect(await postings()).toEqual(kept ? expected : []);
    await db.transaction((tx) => upsertItem(tx, item, { title: 'preserv quot', body: 'quot in object', other: '', length: 5 }));
    await expectPostings(['in:B:5', 'object:B:5', 'preserv:A:5', 'quot:A,B:5']);
    await db.transaction((tx) => upsertItem(tx, { ...item, contentHash: 'h2' }, { title: 'preserv quot', body: 'class', other: 'src/a.js', length: 4 }));
    await expectPostings(['class:B:4', 'preserv:A:4', 'quot:A:4', 'src/a.js:C:4']);
    await db.transaction((tx) => replaceLexicalIndex(tx, id, { title: 'keep quot', body: '', other: '', length: 2 }));
    await expectPostings(['keep:A:2', 'quot:A:2']);
    expect(await db.transaction((tx) => replaceLexicalIndex(tx, `${id}_gone`, { title: 'x', body: '', other: '', length: 1 }))).toBeNull();
    await db.query('DELETE FROM items WHERE id = $1', [id]);
    expect(await postings()).toEqual([]);
  });
});

describe('migration 003: an index built before postings', () => {
  it('gets postings from its stored search vectors, so it answers without re-tokenizing', async () => {
    const db = await openDatabase('pglite://memory');
    try {
      await migrate(db, migrations.filter((m) => m.id < '003'));
      const ws = await testWorkspace(db);
      await db.query(
        `INSERT INTO items (id, workspace_id, source, type, external_id, url, title, content, snippet, occurred_at, source_updated_at, content_hash, search_vector, lexical_length)
         VALUES ('obs_old', $1, 'github', 'pull_request', 'x', 'https://x', 'Preserve quotes', '', '', now(), now(), 'h',
                 setweight(to_tsvector('simple', 'preserv quot'), 'A') || setweight(to_tsvector('simple', 'quot'), 'B'), 3)`,
        [ws],
      );
      expect(await migrate(db, migrations.filter((m) => m.id < '004'))).toEqual(['003_postings']);
      const rows = (await db.query<{ term: string; positions: number[] | string; dl: number }>("SELECT term, positions, dl FROM postings WHERE item_id = 'obs_old' ORDER BY term")).rows;
      expect(rows.map((r) => [r.term, String(r.positions).replace(/[{}]/g, ''), r.dl])).toEqual([
        ['preserv', '1', 3],
        ['quot', '2,3', 3],
      ]);
      // Migration 010: the embedded database keeps no postings, so an older index's rows go.
      expect(await migrate(db)).toContain('010_embedded_postings');
      expect((await db.query('SELECT 1 FROM postings')).rows).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

describe('migration 012: the embedding cache as float4 bytes', () => {
  it('converts cached JSON vectors to the float32 values the new cache reads back, and writes new ones as bytes', async () => {
    const db = await openDatabase('pglite://memory');
    try {
      await migrate(db, migrations.filter((m) => m.id < '012'));
      await db.query(`INSERT INTO embedding_cache (model, content_hash, vector) VALUES ('m', 'old', '[0.1, -2.5, 3e-8, 0]'::jsonb)`);
      expect(await migrate(db, migrations.filter((m) => m.id < '013'))).toEqual(['012_embedding_cache_bytes']);
      const cache = createEmbeddingCacheStore(db);
      await cache.put('m', [{ hash: 'new', vector: [1 / 3, -0.25] }]);
      const got = await cache.get('m', ['old', 'new', 'absent']);
      expect(got.get('old')).toEqual([Math.fround(0.1), -2.5, Math.fround(3e-8), 0]);
      expect(got.get('new')).toEqual([Math.fround(1 / 3), -0.25]);
      expect(got.has('absent')).toBe(false);
    } finally {
      await db.close();
    }
  });
});

describe('migration 015: import progress kept on the import', () => {
  it('counts the events of imports made before it, and keeps counting after it', async () => {
    const db = await openDatabase('pglite://memory');
    try {
      await migrate(db, migrations.filter((m) => m.id < '015'));
      const ws = await testWorkspace(db);
      const importId = await upsertImport(db, { workspaceId: ws, provider: 'github', container: 'o/r', fileHash: 'old', received: 3, invalid: 0, errors: [] });
      const staged = await stageEvents(db, { workspaceId: ws, importId, events: [event(1), event(2), event(3)] });
      await linkImportEvents(db, importId, staged.ids);
      await markEvents(db, [{ id: staged.ids[0]!, status: 'indexed' }, { id: staged.ids[1]!, status: 'failed', error: 'no' }]);
      expect(await migrate(db, migrations.filter((m) => m.id < '016'))).toEqual(['015_import_progress']);
      expect(await getImportProgress(db, importId)).toMatchObject({ events: 3, indexed: 1, failed: 1, pending: 1 });
      await markEvents(db, [{ id: staged.ids[2]!, status: 'indexed' }]);
      expect(await getImportProgress(db, importId)).toMatchObject({ events: 3, indexed: 2, failed: 1, pending: 0 });
    } finally {
      await db.close();
    }
  });
});

describe('migration 016: entity mentions indexed by entity alone', () => {
  it('keeps the mentions written before it, finds them by entity, and an item written again still has each mention once', async () => {
    const db = await openDatabase('pglite://memory');
    try {
      await migrate(db, migrations.filter((m) => m.id < '016'));
      const ws = await testWorkspace(db);
      const item = (n: number): ItemRow => ({
        id: `obs_m16_${n}`, workspaceId: ws, connectionId: null, source: 'github', type: 'pull_request', externalId: `pr:${n}`, url: `https://x/${n}`,
        title: `Item ${n}`, content: `Item ${n}`, snippet: '', container: null, state: null, labels: [], files: [],
        actorNames: [], metadata: {}, occurredAt: '2026-01-01T00:00:00Z', sourceUpdatedAt: '2026-01-01T00:00:00Z', contentHash: `h${n}`,
      });
      const write = (keys: string[][]) =>
        db.transaction(async (tx) => {
          for (let n = 0; n < keys.length; n++) await upsertItem(tx, item(n), { title: `item ${n}`, body: '', other: '', length: 2 });
          await replaceItemsEntities(tx, ws, keys.map((k, n) => ({ itemId: item(n).id, entities: k.map((key) => ({ category: 'keyword', key, confidence: 0.5 })) })));
        });
      await write([['yaml', 'css'], ['yaml']]);
      expect(await migrate(db, migrations.filter((m) => m.id < '017'))).toEqual(['016_entity_mentions_by_entity']);
      const byEntity = async (key: string) =>
        (
          await db.query<{ item_id: string }>(
            "SELECT m.item_id FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE e.workspace_id = $1 AND e.key = $2 ORDER BY m.item_id",
            [ws, key],
          )
        ).rows.map((r) => r.item_id);
      expect(await byEntity('yaml')).toEqual(['obs_m16_0', 'obs_m16_1']);
      expect(await byEntity('css')).toEqual(['obs_m16_0']);
      // Written again, naming an entity twice: each (entity, item) is still one row.
      await write([['yaml', 'yaml', 'json'], ['yaml']]);
      expect(await byEntity('yaml')).toEqual(['obs_m16_0', 'obs_m16_1']);
      expect(await byEntity('css')).toEqual([]);
      expect(await byEntity('json')).toEqual(['obs_m16_0']);
      expect(Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM entity_mentions')).rows[0]!.n)).toBe(3);
    } finally {
      await db.close();
    }
  });
});

describe('migration 013: cluster centroids as float4 bytes', () => {
  it('converts JSON centroids (live and staged) to the float32 values they read as before, keeping a missing one missing', async () => {
    const db = await openDatabase('pglite://memory');
    try {
      await migrate(db, migrations.filter((m) => m.id < '013'));
      const ws = await testWorkspace(db);
      await db.query(`INSERT INTO clusters (id, workspace_id, member_count, centroid) VALUES ('clu_a', $1, 2, '[0.5, -0.12346, 3e-5]'::jsonb), ('clu_b', $1, 1, NULL)`, [ws]);
      await db.query(`INSERT INTO cluster_stage (run_id, workspace_id, id, centroid) VALUES ('rc_1', $1, 'clu_c', '[0.25, 1]'::jsonb)`, [ws]);
      expect((await migrate(db))[0]).toBe('013_centroid_bytes');
      const live = await listClusterCentroids(db, ws);
      const byId = new Map(live.map((c) => [c.id, c.centroid && Array.from(c.centroid)]));
      expect(byId).toEqual(
        new Map([
          ['clu_a', [0.5, Math.fround(-0.12346), Math.fround(3e-5)]],
          ['clu_b', null],
        ]),
      );
      const staged = await db.query<{ hex: string }>("SELECT encode(centroid, 'hex') AS hex FROM cluster_stage WHERE id = 'clu_c'");
      expect(staged.rows[0]?.hex).toBe('3e8000003f800000');
    } finally {
      await db.close();
    }
  });
});
