/**
 * `npm run bench -- vector-writes [--batches 30] [--dims 512]`: what storing an import's embeddings costs
 * the embedded database, in one process on PGlite: batches of 128 vectors into a vectors table (pgvector
 * literals), into the embedding cache as a JSON array (before migration 012) and as float4 bytes, and
 * through the vector store's `upsert` with its filter columns, as pgvector literals in JSON (a Postgres
 * server's path) and by binary COPY (PGlite's). Prints ms per batch and the ratios.
 */
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { createPgVectorStore, float4Bytes, float4Hex, openDatabase, type Db, type VectorRecord } from '@engram/stores';

const { values: args } = parseArgs({ options: { batches: { type: 'string', default: '30' }, dims: { type: 'string', default: '512' } } });
const batches = Number(args.batches);
const dims = Number(args.dims);
const db = await PGlite.create({ extensions: { vector } });
await db.exec(`CREATE EXTENSION IF NOT EXISTS vector;
  CREATE TABLE v (id text PRIMARY KEY, embedding vector(${dims}) NOT NULL);
  CREATE TABLE c_json (hash text PRIMARY KEY, vector jsonb NOT NULL); CREATE TABLE c_bytes (hash text PRIMARY KEY, vector bytea NOT NULL); CREATE TABLE c_hex (hash text PRIMARY KEY, vector bytea NOT NULL);`);
let seed = 7;
const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
// float32 values, as an encoder gives them
const batch = (b: number) => Array.from({ length: 128 }, (_, i) => ({ id: `c${b}_${i}_${Math.floor(random() * 1e9)}`, v: Array.from({ length: dims }, () => Math.fround(random() - 0.5)) }));
const data = Array.from({ length: batches }, (_, b) => batch(b));

async function time(write: (rows: { id: string; v: number[] }[]) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (const rows of data) await write(rows);
  return (performance.now() - started) / batches;
}
const vectors = await time((rows) =>
  db.query('INSERT INTO v (id, embedding) SELECT r.id, r.e::vector FROM jsonb_to_recordset($1::jsonb) AS r(id text, e text)', [
    JSON.stringify(rows.map((r) => ({ id: r.id, e: `[${r.v.join(',')}]` }))),
  ]),
);
const json = await time((rows) =>
  db.query('INSERT INTO c_json (hash, vector) SELECT r.hash, r.vector FROM jsonb_to_recordset($1::jsonb) AS r(hash text, vector jsonb)', [JSON.stringify(rows.map((r) => ({ hash: r.id, vector: r.v })))]),
);
const bytes = await time((rows) =>
  db.query(`INSERT INTO c_bytes (hash, vector) SELECT h.hash, v.vector FROM unnest($1::text[]) WITH ORDINALITY AS h(hash, i) JOIN unnest(ARRAY[${rows.map((_, i) => `$${i + 2}::bytea`).join(', ')}]) WITH ORDINALITY AS v(vector, i) ON v.i = h.i`, [
    rows.map((r) => r.id),
    ...rows.map((r) => float4Bytes(r.v)),
  ]),
);
const hex = await time((rows) =>
  db.query(`INSERT INTO c_hex (hash, vector) SELECT r.hash, decode(r.hex, 'hex') FROM unnest($1::text[], $2::text[]) AS r(hash, hex)`, [rows.map((r) => r.id), rows.map((r) => float4Hex(r.v))]),
);
// The store's upsert both ways, into one table (ids distinct per path).
const storeDb = await openDatabase('pglite://memory');
const withoutCopy: Db = { ...storeDb };
delete withoutCopy.copyFrom;
const stores = { copy: await createPgVectorStore(storeDb), literal: await createPgVectorStore(withoutCopy) };
for (const store of Object.values(stores)) await store.ensureCollection({ model: 'vector-writes', dimensions: dims });
const records = (path: string, rows: { id: string; v: number[] }[]): VectorRecord[] =>
  rows.map((r, i) => ({ id: `${path}:${r.id}`, itemId: `${path}:${r.id}`, workspaceId: 'ws', vector: r.v, source: 'github', type: 'pull_request', occurredAt: new Date(1.6e12 + i * 6e7).toISOString(), actorNames: ['alice', 'bob'] }));
const storeLiteral = await time((rows) => stores.literal.upsert(records('literal', rows)));
const storeCopy = await time((rows) => stores.copy.upsert(records('copy', rows)));
await storeDb.close();
const equal = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM c_bytes b JOIN c_hex h USING (hash) WHERE b.vector = h.vector');
await db.close();
const f = (n: number) => n.toFixed(1);
console.log(`${batches} batches of 128 x ${dims} on PGlite, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`vectors table: ${f(vectors)} ms/batch`);
console.log(`vector store upsert (with filter columns): pgvector literals in JSON ${f(storeLiteral)} ms/batch, binary COPY ${f(storeCopy)} (${(storeLiteral / storeCopy).toFixed(2)}x)`);
console.log(`embedding cache: JSON ${f(json)} ms/batch, float4 bytes as bytea parameters ${f(bytes)} (${(json / bytes).toFixed(2)}x), as a text[] of hex (the store's form) ${f(hex)} (${(json / hex).toFixed(2)}x); equal rows ${equal.rows[0]!.n} of ${batches * 128}`);
