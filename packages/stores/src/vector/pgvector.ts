import { changesSince, createFollower, FEED_START, feedProbe, feedStart, type FeedPosition, type Follower } from '../changeFeed.js';
import type { Db, Queryable } from '../db.js';
import { createMemoryIndex, type MemoryIndex, type StoredChunk } from './memoryIndex.js';
import { CopyBinaryRows } from './binary.js';
import type { CollectionSpec, CollectionState, VectorFilter, VectorHit, VectorRecord, VectorStore } from './types.js';

const REGISTRY = `CREATE TABLE IF NOT EXISTS vector_collections (
  name text PRIMARY KEY, model text NOT NULL, dimensions integer NOT NULL, active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now())`;

const slug = (spec: CollectionSpec): string =>
  `vectors_${spec.model.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 40)}_${spec.dimensions}`;

const literal = (v: number[]): string => `[${v.join(',')}]`;

/**
 * On a Postgres server every vector table is a change feed (`changeFeed.ts`): a trigger stamps each
 * written chunk with a number and its transaction, a delete leaves a tombstone, so a store in another
 * process (an api beside the workers that write) keeps its in-memory mirror in step.
 */
const FEED = `CREATE SEQUENCE IF NOT EXISTS vector_change_seq;
CREATE TABLE IF NOT EXISTS vector_tombstones (
  change_seq bigint PRIMARY KEY DEFAULT nextval('vector_change_seq'), collection text NOT NULL, workspace_id text NOT NULL,
  item_id text NOT NULL, change_xid xid8 NOT NULL DEFAULT pg_current_xact_id());
CREATE INDEX IF NOT EXISTS vector_tombstones_change_xid ON vector_tombstones (change_xid, change_seq);
CREATE OR REPLACE FUNCTION vector_change_stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  NEW.change_seq := nextval('vector_change_seq'); NEW.change_xid := pg_current_xact_id(); RETURN NEW; END $$;
CREATE OR REPLACE FUNCTION vector_change_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO vector_tombstones (collection, workspace_id, item_id) VALUES (TG_TABLE_NAME, OLD.workspace_id, OLD.item_id); RETURN OLD; END $$`;
/** Makes table `t` a change feed, unless it is one already (each statement locks the table, which writers are using). */
async function ensureFeed(tx: Queryable, t: string): Promise<void> {
  const has = await tx.query<{ n: string }>(
    "SELECT (SELECT count(*) FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'change_xid') + (SELECT count(*) FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname IN ('change_stamp', 'change_tombstone')) AS n",
    [t],
  );
  if (Number(has.rows[0]?.n) === 3) return;
  for (const statement of feedOf(t)) await tx.query(statement);
}
const feedOf = (t: string): string[] => [
  `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS change_seq bigint, ADD COLUMN IF NOT EXISTS change_xid xid8`,
  `CREATE INDEX IF NOT EXISTS ${t}_cseq ON ${t} (change_seq)`,
  `CREATE INDEX IF NOT EXISTS ${t}_cxid ON ${t} (change_xid, change_seq)`,
  `DROP TRIGGER IF EXISTS change_stamp ON ${t}`,
  `CREATE TRIGGER change_stamp BEFORE INSERT OR UPDATE ON ${t} FOR EACH ROW EXECUTE FUNCTION vector_change_stamp()`,
  `DROP TRIGGER IF EXISTS change_tombstone ON ${t}`,
  `CREATE TRIGGER change_tombstone AFTER DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION vector_change_tombstone()`,
];
/** Items whose chunks a follower reads per statement. */
const FOLLOW_PAGE = 500;
const CHUNK_COLUMNS = 'id, item_id, workspace_id, source, type, occurred_at, actor_names, embedding::text AS embedding';
/** This connection's staging table for `upsert` by COPY (temporary: one per session, emptied at commit). */
const STAGE = 'engram_vector_stage';
const STAGE_COLUMNS = ['id', 'item_id', 'workspace_id', 'source', 'type', 'occurred_at', 'actor_names', 'embedding'] as const;

/** Above this many chunks the embedded store searches with SQL instead of its memory index (4 KB a 1,024-dim chunk). */
export const MEMORY_INDEX_MAX_CHUNKS = 250_000;
/** Chunks read per statement when the mirror loads. */
const LOAD_PAGE = 2_000;

export interface PgVectorOptions {
  ownsDb?: boolean;
  /**
   * Search an exact in-memory mirror of the table (`memoryIndex.ts`) instead of SQL. Defaults to on for
   * PGlite, whose single owner is this store's process, so every write goes through this store. On a
   * Postgres server, where other processes write, the mirror follows the table's change feed (off
   * unless asked for: a process that searches asks, one that only writes should not hold the vectors).
   */
  memoryIndex?: boolean;
  /** Chunks above which the memory index gives way to SQL over an HNSW index (`MEMORY_INDEX_MAX_CHUNKS`). */
  memoryMaxChunks?: number;
  /** Following another process's writes: how long a search waits for a catch-up under way (`createFollower`). */
  maxStalenessMs?: number;
  /** Following another process's writes: how often to look for them in the background (ms). */
  followMs?: number;
}

export interface PgVectorStore extends VectorStore {
  /** Waits for the in-memory mirror to load; false when this store searches with SQL. */
  memoryReady(): Promise<boolean>;
}

/**
 * pgvector on PGlite or server Postgres: one table per (model, dimension) with an HNSW cosine index.
 * Filtered searches use pgvector's iterative index scans so a selective filter still returns k hits.
 * On PGlite, searches run on an exact in-memory mirror of the table, loaded in the background when the
 * collection opens (a search that comes before waits for it). There the table has no HNSW index while
 * the mirror serves every search: each insert would pay an HNSW insertion in WASM Postgres (about a
 * sixth of indexing time) for an index nothing reads. Past the mirror's cap the index is built once,
 * and SQL searches from then on.
 */
export async function createPgVectorStore(db: Db, options: PgVectorOptions = {}): Promise<PgVectorStore> {
  if (!(await db.hasVectorExtension())) {
    throw new Error('the pgvector extension is not available on this Postgres server: install pgvector, or set VECTOR_URL to pglite:// or qdrant://');
  }
  // Under the schema lock: two processes starting on a fresh database would otherwise both create the
  // extension, and one would fail on pg_extension's unique index despite IF NOT EXISTS.
  const server = db.kind === 'postgres';
  await db.withSchemaLock(async (locked) => {
    await locked.exec('CREATE EXTENSION IF NOT EXISTS vector');
    await locked.exec(REGISTRY);
    if (server) await locked.exec(FEED);
  });
  let table: string | null = null;
  const requireTable = (): string => {
    if (!table) throw new Error('vector store used before ensureCollection()');
    return table;
  };
  const useMemory = options.memoryIndex ?? db.kind === 'pglite';
  const memoryMax = options.memoryMaxChunks ?? MEMORY_INDEX_MAX_CHUNKS;
  /** On a Postgres server the mirror follows the table's change feed; on PGlite this store makes every write. */
  const follows = useMemory && server;
  let follower: Follower | null = null;
  let followed: FeedPosition = FEED_START;
  let seenHead = '';
  const probe = feedProbe(db, 'vector_change_seq');
  const createHnsw = (q: Queryable, t: string) => q.query(`CREATE INDEX IF NOT EXISTS ${t}_hnsw ON ${t} USING hnsw (embedding vector_cosine_ops)`);
  /** The active table's mirror: loading or loaded; null when the table is too big (SQL search). */
  let memory: Promise<MemoryIndex | null> | null = null;
  /** The mirror once loaded (and warmed); until then a search waits for the load. */
  let ready: MemoryIndex | null = null;
  /** Starts (or joins) loading the mirror; a failed load answers null (search stays on SQL) and is retried next time. */
  const loadMemory = (t: string): Promise<MemoryIndex | null> => {
    memory ??= (async () => {
      const count = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${t}`);
      if (Number(count.rows[0]?.n ?? 0) > memoryMax) {
        await db.withSchemaLock((locked) => createHnsw(locked, t));
        return null;
      }
      const index = createMemoryIndex();
      const start = follows ? await feedStart(db, [`SELECT max(change_seq) FROM ${t}`, `SELECT max(change_seq) FROM vector_tombstones WHERE collection = '${t}'`]) : null;
      // In pages, yielding between them: one statement over every chunk held the database (and the
      // event loop, on PGlite) for seconds at 100k chunks. A write during the load is applied after it.
      for (let after = ''; ; ) {
        const page = await db.query<StoredChunk>(
          `SELECT id, item_id, workspace_id, source, type, occurred_at, actor_names, embedding::text AS embedding FROM ${t} WHERE id > $1 ORDER BY id LIMIT ${LOAD_PAGE}`,
          [after],
        );
        index.load(page.rows);
        if (page.rows.length < LOAD_PAGE) break;
        after = page.rows[page.rows.length - 1]!.id;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await index.warm();
      if (table === t) ready = index;
      if (start && table === t) startFollowing(t, index, start);
      return index;
    })().catch(() => {
      if (table === t) memory = null;
      return null;
    });
    return memory;
  };
  /** Past the cap: build the HNSW index (a Postgres server has it), then give the memory back and search with SQL from now on. */
  const outgrown = async (index: MemoryIndex): Promise<void> => {
    if (index.size <= memoryMax || ready !== index || table === null) return;
    const t = table;
    if (!server) await db.withSchemaLock((locked) => createHnsw(locked, t));
    if (ready === index) {
      ready = null;
      memory = Promise.resolve(null);
      void follower?.close();
      follower = null;
    }
  };
  /** Applies a committed write to the mirror once it is loaded (a load in flight sees the write or gets it here). */
  const mirror = async (apply: (index: MemoryIndex) => void): Promise<void> => {
    // A follower gets this process's writes from the feed, as every other process's.
    if (follows) return;
    const index = await memory;
    if (!index) return;
    apply(index);
    await outgrown(index);
  };

  /**
   * What every process committed to the table since the last catch-up: the changed items in one
   * statement, then each one's chunks as they are now, which replace the item's in the mirror (none: gone).
   */
  const catchUp = async (t: string, index: MemoryIndex): Promise<void> => {
    for (let more = true; more && ready === index; ) {
      const changes = await changesSince(
        db,
        followed,
        {
          changed: { from: t, columns: 'change_seq, workspace_id, item_id' },
          gone: { from: 'vector_tombstones', columns: 'change_seq, workspace_id, item_id', where: 'collection = $6' },
        },
        { params: [t], sequence: 'vector_change_seq' },
      );
      const touched = new Map<string, Set<string>>();
      for (const r of [...changes.rows.changed, ...changes.rows.gone] as unknown as { workspace_id: string; item_id: string }[]) {
        (touched.get(r.workspace_id) ?? touched.set(r.workspace_id, new Set()).get(r.workspace_id)!).add(r.item_id);
      }
      for (const [workspaceId, items] of touched) {
        const ids = [...items];
        for (let i = 0; i < ids.length; i += FOLLOW_PAGE) {
          const page = ids.slice(i, i + FOLLOW_PAGE);
          const chunks = await db.query<StoredChunk>(`SELECT ${CHUNK_COLUMNS} FROM ${t} WHERE workspace_id = $1 AND item_id = ANY($2::text[])`, [workspaceId, page]);
          index.replaceItems(workspaceId, page, chunks.rows);
        }
      }
      followed = changes.next;
      seenHead = changes.head;
      more = changes.more;
      await outgrown(index);
    }
  };
  const startFollowing = (t: string, index: MemoryIndex, from: FeedPosition): void => {
    followed = from;
    seenHead = '';
    void follower?.close();
    follower = createFollower({
      active: () => ready === index && table === t,
      stale: () => probe(followed, seenHead),
      catchUp: () => catchUp(t, index),
      followMs: options.followMs ?? 1_000,
      maxStalenessMs: options.maxStalenessMs,
    });
  };

  let staged = false;
  /**
   * The same upsert with the rows in COPY's binary format, through a temporary table emptied at commit:
   * the database takes each vector as float4 bytes instead of parsing 512+ decimal numbers (on PGlite,
   * 7x faster; `npm run bench -- vector-writes`).
   */
  const upsertCopied = async (t: string, records: VectorRecord[]): Promise<void> => {
    const rows = new CopyBinaryRows();
    for (const r of records) {
      rows.row(8).text(r.id).text(r.itemId).text(r.workspaceId).text(r.source).text(r.type).text(r.occurredAt).textArray(r.actorNames).vector(r.vector);
    }
    const bytes = rows.finish();
    if (!staged) {
      await db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${STAGE} (
        id text, item_id text, workspace_id text, source text, type text, occurred_at text, actor_names text[], embedding vector) ON COMMIT DELETE ROWS`);
      staged = true;
    }
    await db.transaction(async (tx) => {
      await tx.copyFrom!(STAGE, STAGE_COLUMNS, bytes);
      await tx.query(
        `INSERT INTO ${t} (${STAGE_COLUMNS.join(', ')})
         SELECT id, item_id, workspace_id, source, type, occurred_at::timestamptz, actor_names, embedding FROM ${STAGE}
         ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding, source = EXCLUDED.source, type = EXCLUDED.type,
           occurred_at = EXCLUDED.occurred_at, actor_names = EXCLUDED.actor_names`,
      );
    });
  };

  return {
    kind: 'pgvector',
    async ensureCollection(spec) {
      const name = slug(spec);
      const active = await db.query<{ name: string; model: string; dimensions: number }>('SELECT name, model, dimensions FROM vector_collections WHERE active');
      const previous = active.rows[0] ? { model: active.rows[0].model, dimensions: active.rows[0].dimensions } : null;
      const modelChanged = previous !== null && (previous.model !== spec.model || previous.dimensions !== spec.dimensions);
      // The DDL takes the schema lock too: concurrent CREATE TABLE IF NOT EXISTS can collide the same way.
      await db.withSchemaLock((locked) => locked.transaction(async (tx) => {
        await tx.query(`CREATE TABLE IF NOT EXISTS ${name} (
          id text PRIMARY KEY, item_id text NOT NULL, workspace_id text NOT NULL, source text NOT NULL, type text NOT NULL,
          occurred_at timestamptz NOT NULL, actor_names text[] NOT NULL DEFAULT '{}', embedding vector(${spec.dimensions}) NOT NULL)`);
        if (server) await ensureFeed(tx, name);
        // A Postgres server always has the HNSW index: other processes may search with SQL.
        if (!useMemory || server) await createHnsw(tx, name);
        else if (Number((await tx.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`)).rows[0]?.n ?? 0) <= memoryMax) {
          await tx.query(`DROP INDEX IF EXISTS ${name}_hnsw`);
        }
        await tx.query(`CREATE INDEX IF NOT EXISTS ${name}_item ON ${name} (workspace_id, item_id)`);
        await tx.query('UPDATE vector_collections SET active = (name = $1)', [name]);
        await tx.query('INSERT INTO vector_collections (name, model, dimensions) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET active = true', [
          name,
          spec.model,
          spec.dimensions,
        ]);
      }));
      if (modelChanged && active.rows[0]) await db.exec(`DROP TABLE IF EXISTS ${active.rows[0].name}`);
      if (table !== name) {
        memory = null;
        ready = null;
        void follower?.close();
        follower = null;
      }
      table = name;
      // Load the mirror now, in the background, so the first search does not wait for it.
      if (useMemory) void loadMemory(name);
      const state: CollectionState = { name, modelChanged, previous };
      return state;
    },
    async upsert(records: VectorRecord[]) {
      if (records.length === 0) return;
      const t = requireTable();
      if (db.copyFrom) await upsertCopied(t, records);
      else await db.query(
        `INSERT INTO ${t} (id, item_id, workspace_id, source, type, occurred_at, actor_names, embedding)
         SELECT r.id, r.item_id, r.workspace_id, r.source, r.type, r.occurred_at, ARRAY(SELECT jsonb_array_elements_text(r.actor_names)), r.embedding::vector
         FROM jsonb_to_recordset($1::jsonb) AS r(id text, item_id text, workspace_id text, source text, type text, occurred_at timestamptz, actor_names jsonb, embedding text)
         ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding, source = EXCLUDED.source, type = EXCLUDED.type,
           occurred_at = EXCLUDED.occurred_at, actor_names = EXCLUDED.actor_names`,
        [
          JSON.stringify(
            records.map((r) => ({
              id: r.id,
              item_id: r.itemId,
              workspace_id: r.workspaceId,
              source: r.source,
              type: r.type,
              occurred_at: r.occurredAt,
              actor_names: r.actorNames,
              embedding: literal(r.vector),
            })),
          ),
        ],
      );
      await mirror((index) => index.upsert(records));
    },
    async deleteItems(workspaceId, itemIds) {
      if (itemIds.length === 0) return;
      await db.query(`DELETE FROM ${requireTable()} WHERE workspace_id = $1 AND item_id = ANY($2::text[])`, [workspaceId, itemIds]);
      await mirror((index) => index.deleteItems(workspaceId, itemIds));
    },
    async search(vector, filter, k) {
      const t = requireTable();
      if (ready) {
        await follower?.fresh();
        // A catch-up may have found the table past the cap (then SQL, below).
        if (ready) return ready.search(vector, filter, k);
      }
      // In memory mode there is no HNSW index under the cap: wait for the mirror rather than scan.
      const loaded = useMemory ? await loadMemory(t) : null;
      if (loaded) return loaded.search(vector, filter, k);
      const { where, params } = whereClause(filter, 2);
      // Over-fetch chunks so that k distinct items survive the per-item dedupe.
      const sql = `SELECT item_id, 1 - (embedding <=> $1::vector) AS similarity FROM ${t} WHERE ${where}
                   ORDER BY embedding <=> $1::vector LIMIT ${Math.max(1, Math.floor(k * 3))}`;
      const res = await db.transaction(async (tx) => {
        await tx.query("SET LOCAL hnsw.iterative_scan = 'relaxed_order'");
        await tx.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(100, k * 4))}`);
        return tx.query<{ item_id: string; similarity: number }>(sql, [literal(vector), ...params]);
      });
      const best = new Map<string, number>();
      for (const row of res.rows) if ((best.get(row.item_id) ?? -2) < row.similarity) best.set(row.item_id, Number(row.similarity));
      const hits: VectorHit[] = [...best].map(([itemId, similarity]) => ({ itemId, similarity }));
      return hits.sort((a, b) => b.similarity - a.similarity).slice(0, k);
    },
    async getVectors(workspaceId, itemIds) {
      if (itemIds.length === 0) return new Map();
      // From the mirror where it holds them (as unit vectors, which is how every reader uses them): a
      // re-cluster reads every item's vector, and at 100k items reading them as text from the embedded
      // database (~5 KB of decimals a vector, parsed twice) was most of its time and of its garbage.
      const found = ready ? ready.vectorsOf(workspaceId, itemIds) : new Map<string, Float32Array>();
      const rest = found.size === 0 ? itemIds : itemIds.filter((id) => !found.has(id));
      if (rest.length === 0) return found;
      const res = await db.query<{ item_id: string; embedding: string }>(
        `SELECT item_id, embedding::text AS embedding FROM ${requireTable()} WHERE workspace_id = $1 AND id = ANY($2::text[])`,
        [workspaceId, rest],
      );
      for (const r of res.rows) found.set(r.item_id, Float32Array.from(JSON.parse(r.embedding) as number[]));
      return found;
    },
    sharedRows(workspaceId, itemIds) {
      return ready ? ready.sharedRows(workspaceId, itemIds) : null;
    },
    sharedRowsChanged(workspaceId, stamp) {
      return !ready || ready.sharedRowsChanged(workspaceId, stamp);
    },
    async count(workspaceId) {
      const res = await db.query<{ n: string }>(`SELECT count(DISTINCT item_id) AS n FROM ${requireTable()} WHERE workspace_id = $1`, [workspaceId]);
      return Number(res.rows[0]?.n ?? 0);
    },
    async memoryReady() {
      return useMemory && (await loadMemory(requireTable())) !== null;
    },
    async healthy() {
      return db.query('SELECT 1').then(
        () => true,
        () => false,
      );
    },
    async close() {
      await follower?.close();
      if (options.ownsDb) await db.close();
    },
  };
}

function whereClause(filter: VectorFilter, firstParam: number): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    parts.push(sql(`$${firstParam + params.length - 1}`));
  };
  add((p) => `workspace_id = ${p}`, filter.workspaceId);
  if (filter.sources?.length) add((p) => `source = ANY(${p}::text[])`, filter.sources);
  if (filter.types?.length) add((p) => `type = ANY(${p}::text[])`, filter.types);
  if (filter.actorNames?.length) add((p) => `actor_names && ${p}::text[]`, filter.actorNames);
  if (filter.from) add((p) => `occurred_at >= ${p}::timestamptz`, filter.from);
  if (filter.to) add((p) => `occurred_at <= ${p}::timestamptz`, filter.to);
  if (filter.excludeItemIds?.length) add((p) => `NOT (item_id = ANY(${p}::text[]))`, filter.excludeItemIds);
  return { where: parts.join(' AND '), params };
}
