import type { Queryable } from '../db.js';

/** What each actor knows about: the reads and the write behind `refreshExpertise` (indexer). */

export interface ExpertiseActor {
  id: string;
  /** Display name and every identity value (logins, names), for bot detection. */
  names: string[];
  /** `actors.is_bot`, set by the indexer when it resolved the actor. */
  flagged: boolean;
}

/** The workspace's actors (only `actorIds` when given). */
export async function loadExpertiseActors(db: Queryable, workspaceId: string, actorIds?: readonly string[]): Promise<ExpertiseActor[]> {
  const res = await db.query<ExpertiseActor>(
    // `is_bot` (migration 002) is read through to_jsonb so this works before and after the column exists.
    `SELECT a.id, array_remove(array_agg(i.value), NULL) || a.display_name AS names,
       bool_or(coalesce((to_jsonb(a) ->> 'is_bot')::boolean, false)) AS flagged
     FROM actors a LEFT JOIN actor_identities i ON i.actor_id = a.id
     WHERE a.workspace_id = $1 AND ($2::text[] IS NULL OR a.id = ANY($2::text[])) GROUP BY a.id`,
    [workspaceId, actorIds ?? null],
  );
  return res.rows;
}

export interface ActorRole {
  actorId: string;
  itemId: string;
  role: string;
}

/** Every (actor, item, role) of the given actors. */
export async function loadActorRoles(db: Queryable, workspaceId: string, actorIds: readonly string[]): Promise<ActorRole[]> {
  if (actorIds.length === 0) return [];
  const res = await db.query<{ actor_id: string; item_id: string; role: string }>(
    'SELECT actor_id, item_id, role FROM item_actors WHERE workspace_id = $1 AND actor_id = ANY($2::text[])',
    [workspaceId, actorIds],
  );
  return res.rows.map((r) => ({ actorId: r.actor_id, itemId: r.item_id, role: r.role }));
}

/** How many distinct items each of these actors has in the workspace (actors with none left out). */
export async function countActorItems(db: Queryable, workspaceId: string, actorIds: readonly string[]): Promise<Map<string, number>> {
  if (actorIds.length === 0) return new Map();
  const res = await db.query<{ actor_id: string; n: number }>(
    'SELECT actor_id, count(DISTINCT item_id)::int AS n FROM item_actors WHERE workspace_id = $1 AND actor_id = ANY($2::text[]) GROUP BY actor_id',
    [workspaceId, actorIds],
  );
  return new Map(res.rows.map((r) => [r.actor_id, Number(r.n)]));
}

export interface ItemClusterKeywords {
  itemId: string;
  keywords: string[];
  memberCount: number;
}

/**
 * Items whose clusters one statement reads: an expertise pass over a prolific author asks for tens of
 * thousands (52,753 items were one statement of 0.74 s at 100k items, every search's read waiting behind it).
 */
const CLUSTER_KEYWORDS_PAGE = 2_000;

/** The keywords of each item's cluster, for clusters of at least `minMembers` items that have keywords. */
export async function loadClusterKeywordsOfItems(db: Queryable, itemIds: readonly string[], minMembers: number): Promise<ItemClusterKeywords[]> {
  const out: ItemClusterKeywords[] = [];
  for (let i = 0; i < itemIds.length; i += CLUSTER_KEYWORDS_PAGE) {
    const res = await db.query<{ item_id: string; keywords: string[]; member_count: number }>(
      `SELECT m.item_id, c.keywords, c.member_count FROM cluster_members m JOIN clusters c ON c.id = m.cluster_id
       WHERE m.item_id = ANY($1::text[]) AND c.member_count >= $2 AND cardinality(c.keywords) > 0`,
      [itemIds.slice(i, i + CLUSTER_KEYWORDS_PAGE), minMembers],
    );
    for (const r of res.rows) out.push({ itemId: r.item_id, keywords: r.keywords, memberCount: Number(r.member_count) });
  }
  return out;
}

export interface ActorExpertiseUpdate {
  id: string;
  /** Ranked entries (jsonb), best first. */
  expertise: unknown[];
  /** The handful of readable domains `context.relevantActors` shows. */
  domains: string[];
  itemCount: number;
}

/** Writes expertise, domains and item counts of many actors in one statement. */
export async function saveActorExpertise(db: Queryable, updates: readonly ActorExpertiseUpdate[]): Promise<void> {
  if (updates.length === 0) return;
  await db.query(
    `UPDATE actors a SET expertise = u.expertise, expertise_domains = ARRAY(SELECT jsonb_array_elements_text(u.domains)),
       item_count = u.item_count, updated_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS u(id text, expertise jsonb, domains jsonb, item_count int) WHERE a.id = u.id`,
    [JSON.stringify(updates.map((u) => ({ id: u.id, expertise: u.expertise, domains: u.domains, item_count: u.itemCount })))],
  );
}

/** An actor marked stale, with the stamp of its latest mark and how many items it has. */
export interface StaleExpertise {
  actorId: string;
  stamp: string;
  itemCount: number;
}

/**
 * Marks actors' expertise stale (in the transaction that wrote their items, so a crash loses no mark);
 * a mark already there is renewed, so a pass that read the older one does not clear it.
 */
export async function markExpertiseStale(tx: Queryable, workspaceId: string, actorIds: readonly string[]): Promise<void> {
  if (actorIds.length === 0) return;
  await tx.query(
    `INSERT INTO actor_expertise_stale (actor_id, workspace_id) SELECT unnest($2::text[]), $1
     ON CONFLICT (actor_id) DO UPDATE SET stamp = nextval('actor_expertise_stamp')`,
    [workspaceId, [...new Set(actorIds)].sort()],
  );
}

/** The workspace's actors marked stale, oldest mark first. */
export async function listStaleExpertise(db: Queryable, workspaceId: string): Promise<StaleExpertise[]> {
  const res = await db.query<{ actor_id: string; stamp: string; item_count: number }>(
    'SELECT s.actor_id, s.stamp, a.item_count FROM actor_expertise_stale s JOIN actors a ON a.id = s.actor_id WHERE s.workspace_id = $1 ORDER BY s.stamp',
    [workspaceId],
  );
  return res.rows.map((r) => ({ actorId: r.actor_id, stamp: String(r.stamp), itemCount: Number(r.item_count) }));
}

/** Workspaces with actors marked stale. */
export async function workspacesWithStaleExpertise(db: Queryable): Promise<string[]> {
  const res = await db.query<{ workspace_id: string }>('SELECT DISTINCT workspace_id FROM actor_expertise_stale');
  return res.rows.map((r) => r.workspace_id);
}

/**
 * Clears the marks a pass read, unless a write renewed them since. Rows are locked in actor-id order, the
 * order the indexer marks them in, so a pass and an indexing batch on another worker never deadlock.
 */
export async function clearStaleExpertise(db: Queryable, read: readonly StaleExpertise[]): Promise<void> {
  if (read.length === 0) return;
  await db.query(
    `DELETE FROM actor_expertise_stale s USING (
       SELECT x.actor_id FROM actor_expertise_stale x JOIN unnest($1::text[], $2::bigint[]) AS r(actor_id, stamp)
         ON x.actor_id = r.actor_id AND x.stamp <= r.stamp
       ORDER BY x.actor_id FOR UPDATE OF x) d
     WHERE s.actor_id = d.actor_id`,
    [read.map((r) => r.actorId), read.map((r) => r.stamp)],
  );
}
