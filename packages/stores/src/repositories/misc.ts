import type { Db, Queryable } from '../db.js';
import { float4Hex, fromFloat4Hex } from '../vector/binary.js';

/** Records a webhook delivery; false when this delivery id was seen before (a redelivery). */
export async function recordWebhookDelivery(
  db: Queryable,
  input: { provider: string; deliveryId: string; connectionId: string | null; event: string | null },
): Promise<boolean> {
  const res = await db.query(
    'INSERT INTO webhook_deliveries (provider, delivery_id, connection_id, event) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [input.provider, input.deliveryId, input.connectionId, input.event],
  );
  return res.rowCount > 0;
}

/**
 * Refreshes the query planner's table statistics on the embedded database. PGlite runs no autovacuum, so
 * without this every table keeps the statistics of an empty one and the planner never picks an index
 * (measured on the full prettier index: `fast` 201 -> 182 ms a query; entity path 53 -> 32 ms). A no-op
 * on a Postgres server, whose autovacuum does it. Returns whether it ran. One statement over every table:
 * for a benchmark's index; a running server uses `refreshPlannerStatsByTable` (the tables that need it, one
 * at a time).
 */
export async function refreshPlannerStats(db: Db): Promise<boolean> {
  if (db.kind !== 'pglite') return false;
  await db.query('ANALYZE');
  return true;
}

/** Whether the database answers a trivial query (readiness). Never throws. */
export async function pingDatabase(db: Queryable): Promise<boolean> {
  return db.query('SELECT 1').then(
    () => true,
    () => false,
  );
}

export async function getSetting<T>(db: Queryable, key: string): Promise<T | null> {
  const res = await db.query<{ value: T }>('SELECT value FROM settings WHERE key = $1', [key]);
  return res.rows[0]?.value ?? null;
}

export async function putSetting(db: Queryable, key: string, value: unknown): Promise<void> {
  await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2', [key, JSON.stringify(value)]);
}

/** Postgres-backed embedding cache keyed by (model, content hash): a re-index or a second workspace pays once. */
export function createEmbeddingCacheStore(db: Queryable) {
  return {
    /** Vectors travel as hex text (`float4Hex`): both drivers' own bytea codecs went byte by byte in JavaScript. */
    async get(model: string, hashes: string[]): Promise<Map<string, number[]>> {
      if (hashes.length === 0) return new Map();
      const res = await db.query<{ content_hash: string; vector: string }>(
        "SELECT content_hash, encode(vector, 'hex') AS vector FROM embedding_cache WHERE model = $1 AND content_hash = ANY($2::text[])",
        [model, hashes],
      );
      return new Map(res.rows.map((r) => [r.content_hash, fromFloat4Hex(r.vector)]));
    },
    async put(model: string, entries: { hash: string; vector: number[] }[]): Promise<void> {
      if (entries.length === 0) return;
      await db.query(
        `INSERT INTO embedding_cache (model, content_hash, vector)
         SELECT $1, r.hash, decode(r.hex, 'hex') FROM unnest($2::text[], $3::text[]) AS r(hash, hex) ON CONFLICT DO NOTHING`,
        [model, entries.map((e) => e.hash), entries.map((e) => float4Hex(e.vector))],
      );
    },
  };
}
