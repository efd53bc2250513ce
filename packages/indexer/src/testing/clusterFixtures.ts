// Test and benchmark helper: writes minimal item, entity and actor rows straight into the stores, the
// way the indexing pipeline does, so clusters and expertise can be exercised on realistic rows. Not
// part of the production barrel (exported as @engram/indexer/testing).
import type { ActorRole, ItemType } from '@engram/contracts';
import { sha256, stableId, type Queryable } from '@engram/stores';
import { extractEntities } from '../entities/extractEntities.js';

export interface FixtureItem {
  externalId: string;
  type: Extract<ItemType, 'pull_request' | 'commit' | 'issue'>;
  title: string;
  body?: string;
  files?: string[];
  labels?: string[];
  actors?: { login: string; role: ActorRole }[];
  occurredAt?: string;
}

/** Inserts the item with its extracted entities and actors; returns the item id. */
export async function insertFixtureItem(db: Queryable, workspaceId: string, item: FixtureItem): Promise<string> {
  const id = stableId('obs', workspaceId, item.externalId);
  const body = item.body ?? '';
  const actors = item.actors ?? [];
  const occurredAt = item.occurredAt ?? new Date().toISOString();
  await db.query(
    `INSERT INTO items (id, workspace_id, source, type, external_id, url, title, content, snippet, container, labels, files, actor_names,
       occurred_at, source_updated_at, content_hash)
     VALUES ($1, $2, 'github', $3, $4, $5, $6, $7, $8, 'prettier/prettier', $9, $10, $11, $12, $12, $13) ON CONFLICT DO NOTHING`,
    [id, workspaceId, item.type, item.externalId, `https://github.com/${item.externalId}`, item.title, `${item.title}\n\n${body}`, body.slice(0, 300),
      item.labels ?? [], item.files ?? [], actors.map((a) => a.login.toLowerCase()), occurredAt, sha256(`${item.title}\n${body}`)],
  );
  const entities = extractEntities({
    source: 'github',
    type: item.type,
    title: item.title,
    body,
    files: item.files ?? [],
    labels: item.labels ?? [],
    container: 'prettier/prettier',
    actors: actors.map((a) => ({ role: a.role, provider: 'github' as const, login: a.login })),
    keys: [],
    refs: [],
    metadata: {},
  });
  if (entities.length > 0) {
    await db.query(
      `WITH upserted AS (
         INSERT INTO entities (workspace_id, category, key, item_count)
         SELECT $1, r.category, r.key, 1 FROM jsonb_to_recordset($2::jsonb) AS r(category text, key text, confidence real)
         ON CONFLICT (workspace_id, category, key) DO UPDATE SET item_count = entities.item_count + 1
         RETURNING id, category, key
       )
       INSERT INTO entity_mentions (entity_id, item_id, workspace_id, confidence)
       SELECT u.id, $3, $1, r.confidence FROM upserted u
       JOIN jsonb_to_recordset($2::jsonb) AS r(category text, key text, confidence real) ON r.category = u.category AND r.key = u.key
       ON CONFLICT DO NOTHING`,
      [workspaceId, JSON.stringify(entities), id],
    );
  }
  for (const actor of actors) {
    const login = actor.login.toLowerCase();
    const actorId = stableId('act', workspaceId, login);
    await db.query('INSERT INTO actors (id, workspace_id, display_name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [actorId, workspaceId, actor.login]);
    await db.query("INSERT INTO actor_identities (workspace_id, kind, value, actor_id) VALUES ($1, 'login', $2, $3) ON CONFLICT DO NOTHING", [workspaceId, login, actorId]);
    await db.query('INSERT INTO item_actors (item_id, actor_id, workspace_id, role) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [id, actorId, workspaceId, actor.role]);
  }
  return id;
}

export const actorIdOf = (workspaceId: string, login: string): string => stableId('act', workspaceId, login.toLowerCase());
