import type { Queryable } from '../db.js';

/** What the indexer compares before touching an item: freshness, content and embedding hashes, indexed terms. */
export interface ItemState {
  id: string;
  contentHash: string;
  embeddingHash: string | null;
  sourceUpdatedAt: string;
  /** Distinct lexemes of the stored search vector (what the lexicon counted for this item). */
  terms: string[];
}

export interface ItemRow {
  id: string;
  workspaceId: string;
  connectionId: string | null;
  source: string;
  type: string;
  externalId: string;
  url: string;
  title: string | null;
  content: string;
  snippet: string;
  container: string | null;
  state: string | null;
  labels: string[];
  files: string[];
  actorNames: string[];
  metadata: Record<string, unknown>;
  occurredAt: string;
  sourceUpdatedAt: string;
  contentHash: string;
}

/** Pre-tokenised fields (tokens joined by spaces) for the weighted lexical index. */
export interface LexicalFields {
  /** Weight A. */
  title: string;
  /** Weight B. */
  body: string;
  /** Weight C: file paths and labels. */
  other: string;
  /** Weight D: the words of camelCase identifiers in any field (weighed below a whole word); absent = none. */
  parts?: string;
  /** Number of tokens over all fields (BM25 document length). */
  length: number;
}

/** Serialises concurrent indexing of one item until the end of the transaction. */
export async function lockItem(tx: Queryable, itemId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`engram:item:${itemId}`]);
}

export async function getItemState(db: Queryable, itemId: string): Promise<ItemState | null> {
  const res = await db.query<{ id: string; content_hash: string; embedding_hash: string | null; source_updated_at: Date | string; terms: string[] | null }>(
    `SELECT id, content_hash, embedding_hash, source_updated_at,
            CASE WHEN search_vector IS NULL THEN '{}'::text[] ELSE tsvector_to_array(search_vector) END AS terms
     FROM items WHERE id = $1`,
    [itemId],
  );
  const r = res.rows[0];
  if (!r) return null;
  return { id: r.id, contentHash: r.content_hash, embeddingHash: r.embedding_hash, sourceUpdatedAt: new Date(r.source_updated_at).toISOString(), terms: r.terms ?? [] };
}

/**
 * Inserts or replaces an item and its weighted lexical index (`simple` config: the tokens are already
 * normalised, Postgres only splits on spaces). Keeps `embedding_hash`: that changes only once vectors are
 * stored. Returns the item's distinct indexed terms.
 */
export async function upsertItem(tx: Queryable, item: ItemRow, lexical: LexicalFields): Promise<string[]> {
  return (await upsertItems(tx, [{ item, lexical }])).get(item.id) ?? [];
}

/**
 * The `postings` table is the lexical path's inverted index on a Postgres server. The embedded database
 * keeps none (`engram.postings = off`, set by `openPglite`): its searches read the in-memory read model,
 * which is built from `items.search_vector`, and writing a hundred posting rows an item into a btree that
 * grows with the workspace was the largest write of an import. The guard is a constant to the planner (a
 * one-time filter), so on PGlite the insert reads nothing.
 */
export const POSTINGS_KEPT = "current_setting('engram.postings', true) IS DISTINCT FROM 'off'";

/** Rewrites the postings of items from their stored `search_vector`, in the caller's transaction. */
async function refreshPostings(tx: Queryable, itemIds: readonly string[]): Promise<void> {
  await tx.query('DELETE FROM postings WHERE item_id = ANY($1::text[])', [itemIds]);
  await tx.query(
    `INSERT INTO postings (workspace_id, term, item_id, dl, positions, weights)
     SELECT i.workspace_id, u.lexeme, i.id, i.lexical_length, u.positions, u.weights
     FROM items i, unnest(i.search_vector) AS u(lexeme, positions, weights)
     WHERE i.id = ANY($1::text[]) AND i.search_vector IS NOT NULL AND ${POSTINGS_KEPT}`,
    [itemIds],
  );
}

/** What an item's lexical index is built from, as stored. */
export interface LexicalSource {
  id: string;
  title: string | null;
  content: string;
  files: string[];
  labels: string[];
}

/** A page of a workspace's items' lexical sources in id order (keyset pagination: pass the last id seen). */
export async function listLexicalSources(db: Queryable, workspaceId: string, afterId: string | null, limit: number): Promise<LexicalSource[]> {
  const res = await db.query<LexicalSource>(
    `SELECT id, title, content, files, labels FROM items
     WHERE workspace_id = $1 AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
    [workspaceId, afterId, limit],
  );
  return res.rows;
}

/**
 * Replaces an item's weighted lexical index only (the rest of the row is untouched). Returns the item's
 * distinct indexed terms, or null when the item no longer exists. Call under `lockItem`.
 */
export async function replaceLexicalIndex(tx: Queryable, itemId: string, lexical: LexicalFields): Promise<string[] | null> {
  const res = await tx.query<{ terms: string[] }>(
    `UPDATE items SET search_vector =
       setweight(to_tsvector('simple', $2), 'A') || setweight(to_tsvector('simple', $3), 'B') || setweight(to_tsvector('simple', $4), 'C') ||
       setweight(to_tsvector('simple', $6), 'D'),
       lexical_length = $5
     WHERE id = $1
     RETURNING tsvector_to_array(search_vector) AS terms`,
    [itemId, lexical.title, lexical.body, lexical.other, lexical.length, lexical.parts ?? ''],
  );
  if (res.rows.length === 0) return null;
  await refreshPostings(tx, [itemId]);
  return res.rows[0]!.terms;
}

export async function setEmbeddingHash(db: Queryable, itemId: string, hash: string): Promise<void> {
  await db.query('UPDATE items SET embedding_hash = $2 WHERE id = $1', [itemId, hash]);
}

/** The fields an embedding and its vector filter are built from. */
export interface EmbeddableItem {
  id: string;
  workspaceId: string;
  source: string;
  type: string;
  title: string | null;
  content: string;
  occurredAt: string;
  actorNames: string[];
  embeddingHash: string | null;
}

/** A page of a workspace's items in id order (keyset pagination: pass the last id seen). */
export async function listEmbeddableItems(db: Queryable, workspaceId: string, afterId: string | null, limit: number): Promise<EmbeddableItem[]> {
  const res = await db.query<{
    id: string; workspace_id: string; source: string; type: string; title: string | null; content: string;
    occurred_at: Date | string; actor_names: string[]; embedding_hash: string | null;
  }>(
    `SELECT id, workspace_id, source, type, title, content, occurred_at, actor_names, embedding_hash FROM items
     WHERE workspace_id = $1 AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
    [workspaceId, afterId, limit],
  );
  return res.rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    source: r.source,
    type: r.type,
    title: r.title,
    content: r.content,
    occurredAt: new Date(r.occurred_at).toISOString(),
    actorNames: r.actor_names,
    embeddingHash: r.embedding_hash,
  }));
}

/** `lockItem` for many items at once, in id order, so concurrent batches never wait on each other in a cycle. */
export async function lockItems(tx: Queryable, itemIds: readonly string[]): Promise<void> {
  const keys = [...new Set(itemIds)].sort().map((id) => `engram:item:${id}`);
  if (keys.length === 0) return;
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k', [keys]);
}

/** `getItemState` for many items: one row per stored item, keyed by id. */
export async function getItemStates(db: Queryable, itemIds: readonly string[]): Promise<Map<string, ItemState>> {
  if (itemIds.length === 0) return new Map();
  const res = await db.query<{ id: string; content_hash: string; embedding_hash: string | null; source_updated_at: Date | string; terms: string[] | null }>(
    `SELECT id, content_hash, embedding_hash, source_updated_at,
            CASE WHEN search_vector IS NULL THEN '{}'::text[] ELSE tsvector_to_array(search_vector) END AS terms
     FROM items WHERE id = ANY($1::text[])`,
    [[...new Set(itemIds)]],
  );
  return new Map(
    res.rows.map((r) => [
      r.id,
      { id: r.id, contentHash: r.content_hash, embeddingHash: r.embedding_hash, sourceUpdatedAt: new Date(r.source_updated_at).toISOString(), terms: r.terms ?? [] },
    ]),
  );
}

/**
 * `upsertItem` for many items in two statements (rows as one JSON document, postings rebuilt from the
 * stored search vectors). Ids must be distinct. Returns each item's distinct indexed terms.
 */
export async function upsertItems(tx: Queryable, rows: readonly { item: ItemRow; lexical: LexicalFields }[]): Promise<Map<string, string[]>> {
  if (rows.length === 0) return new Map();
  const doc = rows.map(({ item, lexical }) => ({
    id: item.id, workspace_id: item.workspaceId, connection_id: item.connectionId, source: item.source, type: item.type,
    external_id: item.externalId, url: item.url, title: item.title, content: item.content, snippet: item.snippet,
    container: item.container, state: item.state, labels: item.labels, files: item.files, actor_names: item.actorNames,
    metadata: item.metadata, occurred_at: item.occurredAt, source_updated_at: item.sourceUpdatedAt, content_hash: item.contentHash,
    lex_a: lexical.title, lex_b: lexical.body, lex_c: lexical.other, lex_d: lexical.parts ?? '', lexical_length: lexical.length,
  }));
  const res = await tx.query<{ id: string; terms: string[] }>(
    `INSERT INTO items (id, workspace_id, connection_id, source, type, external_id, url, title, content, snippet, container, state,
       labels, files, actor_names, metadata, occurred_at, source_updated_at, content_hash, search_vector, lexical_length, indexed_at)
     SELECT r.id, r.workspace_id, r.connection_id, r.source, r.type, r.external_id, r.url, r.title, r.content, r.snippet, r.container, r.state,
       r.labels, r.files, r.actor_names, r.metadata, r.occurred_at, r.source_updated_at, r.content_hash,
       setweight(to_tsvector('simple', r.lex_a), 'A') || setweight(to_tsvector('simple', r.lex_b), 'B') || setweight(to_tsvector('simple', r.lex_c), 'C') ||
       setweight(to_tsvector('simple', r.lex_d), 'D'),
       r.lexical_length, now()
     FROM jsonb_to_recordset($1::jsonb) AS r(id text, workspace_id text, connection_id text, source text, type text, external_id text,
       url text, title text, content text, snippet text, container text, state text, labels text[], files text[], actor_names text[],
       metadata jsonb, occurred_at timestamptz, source_updated_at timestamptz, content_hash text, lex_a text, lex_b text, lex_c text,
       lex_d text, lexical_length int)
     ORDER BY r.id
     ON CONFLICT (id) DO UPDATE SET connection_id = EXCLUDED.connection_id, type = EXCLUDED.type, url = EXCLUDED.url,
       title = EXCLUDED.title, content = EXCLUDED.content, snippet = EXCLUDED.snippet, container = EXCLUDED.container,
       state = EXCLUDED.state, labels = EXCLUDED.labels, files = EXCLUDED.files, actor_names = EXCLUDED.actor_names,
       metadata = EXCLUDED.metadata, occurred_at = EXCLUDED.occurred_at, source_updated_at = EXCLUDED.source_updated_at,
       content_hash = EXCLUDED.content_hash, search_vector = EXCLUDED.search_vector, lexical_length = EXCLUDED.lexical_length,
       indexed_at = now()
     RETURNING id, tsvector_to_array(search_vector) AS terms`,
    [JSON.stringify(doc)],
  );
  await refreshPostings(tx, rows.map((r) => r.item.id));
  return new Map(res.rows.map((r) => [r.id, r.terms ?? []]));
}

/** `setEmbeddingHash` for many items in one statement. */
export async function setEmbeddingHashes(db: Queryable, hashes: readonly { itemId: string; hash: string }[]): Promise<void> {
  if (hashes.length === 0) return;
  await db.query('UPDATE items i SET embedding_hash = h.hash FROM unnest($1::text[], $2::text[]) AS h(id, hash) WHERE i.id = h.id', [
    hashes.map((h) => h.itemId),
    hashes.map((h) => h.hash),
  ]);
}

/** The time of a workspace's newest item, or null when it has none: what "this year" or "last month" count back from. */
export async function newestItemAt(db: Queryable, workspaceId: string): Promise<string | null> {
  const res = await db.query<{ at: Date | string | null }>('SELECT max(occurred_at) AS at FROM items WHERE workspace_id = $1', [workspaceId]);
  const at = res.rows[0]?.at;
  return at ? new Date(at).toISOString() : null;
}

/**
 * When a workspace first released `version` (`3.5`, `3`), from its own items: a release or tag item
 * naming it, or a change whose whole title says it releases it ("Release 3.5.0", "v3.5.0", "chore(release):
 * 3.5.0", "Bump version to 3.5.0"). A shorter version stands for its line (`3` -> 3.0.0, 3.1.0 ...), so the
 * first of the line counts. Null when no item says so.
 */
export async function releasedAt(db: Queryable, workspaceId: string, version: string): Promise<string | null> {
  if (!/^\d+(?:\.\d+){0,2}$/.test(version)) return null;
  const v = version.replace(/\./g, '\\.');
  const releaseTitle = `^\\s*(chore\\(release\\)!?:\\s*|release[sd]?:?\\s+|releasing\\s+|bump(ed)?\\s+(the\\s+)?version\\s+to\\s+|version\\s+|prepare\\s+(for\\s+)?release\\s+)?v?${v}(\\.[0-9]+)*[^[:alnum:]]*$`;
  const releaseItem = `(^|[^0-9.])v?${v}(\\.[0-9]+)*($|[^0-9.])`;
  const res = await db.query<{ at: Date | string | null }>(
    `SELECT min(occurred_at) AS at FROM items
     WHERE workspace_id = $1 AND title IS NOT NULL
       AND (title ~* $2 OR (type IN ('release', 'tag') AND title ~* $3))`,
    [workspaceId, releaseTitle, releaseItem],
  );
  const at = res.rows[0]?.at;
  return at ? new Date(at).toISOString() : null;
}
