import type { Queryable } from '../db.js';

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
    async get(model: string, hashes: string[]): Promise<Map<string, number[]>> {
      if (hashes.length === 0) return new Map();
      const res = await db.query<{ content_hash: string; vector: number[] }>(
        'SELECT content_hash, vector FROM embedding_cache WHERE model = $1 AND content_hash = ANY($2::text[])',
        [model, hashes],
      );
      return new Map(res.rows.map((r) => [r.content_hash, r.vector]));
    },
    async put(model: string, entries: { hash: string; vector: number[] }[]): Promise<void> {
      if (entries.length === 0) return;
      await db.query(
        `INSERT INTO embedding_cache (model, content_hash, vector)
         SELECT $1, r.hash, r.vector FROM jsonb_to_recordset($2::jsonb) AS r(hash text, vector jsonb) ON CONFLICT DO NOTHING`,
        [model, JSON.stringify(entries)],
      );
    },
  };
}
