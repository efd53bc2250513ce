import type { Db } from '../db.js';
import { m001Core } from './m001_core.js';
import { m002ActorBots } from './m002_actor_bots.js';
import { m003Postings } from './m003_postings.js';
import { m004Areas } from './m004_areas.js';
import { m005ItemChanges } from './m005_item_changes.js';
import { m006ReclusterStaging } from './m006_recluster_staging.js';
import { m007DropUnusedSearchIndex } from './m007_drop_unused_search_index.js';
import { m008ExpertiseStale } from './m008_expertise_stale.js';
import { m009ChildRowsWithoutRowChecks } from './m009_child_rows_without_row_checks.js';
import { m010EmbeddedPostings } from './m010_embedded_postings.js';
import { m011AreaTermLists } from './m011_area_term_lists.js';
import { m012EmbeddingCacheBytes } from './m012_embedding_cache_bytes.js';
import { m013CentroidBytes } from './m013_centroid_bytes.js';
import { m014ChangeXids } from './m014_change_xids.js';
import { m015ImportProgress } from './m015_import_progress.js';
import { m016EntityMentionsByEntity } from './m016_entity_mentions_by_entity.js';
import { m017ItemRefsReferenceKey } from './m017_item_refs_reference_key.js';
import { m018CentroidsInline } from './m018_centroids_inline.js';

export interface Migration {
  id: string;
  sql: string;
}

/** Append only: never edit a migration that has shipped; add the next one. */
export const migrations: Migration[] = [
  { id: '001_core', sql: m001Core },
  { id: '002_actor_bots', sql: m002ActorBots },
  { id: '003_postings', sql: m003Postings },
  { id: '004_areas', sql: m004Areas },
  { id: '005_item_changes', sql: m005ItemChanges },
  { id: '006_recluster_staging', sql: m006ReclusterStaging },
  { id: '007_drop_unused_search_index', sql: m007DropUnusedSearchIndex },
  { id: '008_expertise_stale', sql: m008ExpertiseStale },
  { id: '009_child_rows_without_row_checks', sql: m009ChildRowsWithoutRowChecks },
  { id: '010_embedded_postings', sql: m010EmbeddedPostings },
  { id: '011_area_term_lists', sql: m011AreaTermLists },
  { id: '012_embedding_cache_bytes', sql: m012EmbeddingCacheBytes },
  { id: '013_centroid_bytes', sql: m013CentroidBytes },
  { id: '014_change_xids', sql: m014ChangeXids },
  { id: '015_import_progress', sql: m015ImportProgress },
  { id: '016_entity_mentions_by_entity', sql: m016EntityMentionsByEntity },
  { id: '017_item_refs_reference_key', sql: m017ItemRefsReferenceKey },
  { id: '018_centroids_inline', sql: m018CentroidsInline },
];

/**
 * The sort memory of a migration on the embedded database. Its WebAssembly heap never shrinks, and an index
 * a migration builds over an existing table sorts in up to `maintenance_work_mem` (64 MB by default): on a
 * 100k-item index, migrations 016 and 017 grew the heap from 189 to 272 MB for the life of the process, where
 * with 8 MB they sort through temporary files and leave it at 189 MB (2.0 -> 2.2 s).
 */
const EMBEDDED_MIGRATION_SORT_MEMORY = '8MB';

/**
 * Applies pending migrations in order, each in its own transaction, under the database's schema lock
 * (`Db.withSchemaLock`): processes that start together (api and workers on a fresh database) take turns,
 * and each one after the first finds the migrations recorded and applies nothing.
 */
export async function migrate(db: Db, list: Migration[] = migrations): Promise<string[]> {
  const applied = await db.withSchemaLock(async (locked) => {
    await locked.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await locked.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
    const applied: string[] = [];
    for (const m of list) {
      if (done.has(m.id)) continue;
      await locked.transaction(async (tx) => {
        if (db.kind === 'pglite') await tx.query(`SET LOCAL maintenance_work_mem = '${EMBEDDED_MIGRATION_SORT_MEMORY}'`);
        for (const stmt of splitStatements(m.sql)) await tx.query(stmt);
        await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
      });
      applied.push(m.id);
    }
    return applied;
  });
  await db.learnDeleteReach();
  return applied;
}

export async function pendingMigrations(db: Db): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    "SELECT id FROM schema_migrations WHERE to_regclass('schema_migrations') IS NOT NULL",
  ).catch(() => ({ rows: [] as { id: string }[] }));
  const done = new Set(res.rows.map((r) => r.id));
  return migrations.filter((m) => !done.has(m.id)).map((m) => m.id);
}

/** Splits a migration on statement boundaries (our migrations contain no functions or quoted semicolons). */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
}
