import type { Queryable } from '../db.js';

/** One way a provider names a person: `login:<provider>`, `email` or `name` (normalised value). */
export interface ActorIdentity {
  kind: string;
  value: string;
}

export interface ActorRow {
  id: string;
  workspaceId: string;
  displayName: string;
  isBot: boolean;
  itemCount: number;
}

const identityId = (i: ActorIdentity): string => `${i.kind}\u0000${i.value}`;

/** Actor id of each identity already known in the workspace, keyed `kind\0value`. */
export async function findActorsByIdentities(db: Queryable, workspaceId: string, identities: readonly ActorIdentity[]): Promise<Map<string, string>> {
  if (identities.length === 0) return new Map();
  const res = await db.query<{ kind: string; value: string; actor_id: string }>(
    `SELECT a.kind, a.value, a.actor_id FROM actor_identities a
     JOIN unnest($2::text[], $3::text[]) AS i(kind, value) ON i.kind = a.kind AND i.value = a.value
     WHERE a.workspace_id = $1`,
    [workspaceId, identities.map((i) => i.kind), identities.map((i) => i.value)],
  );
  return new Map(res.rows.map((r) => [identityId(r), r.actor_id]));
}

export async function insertActor(tx: Queryable, actor: { id: string; workspaceId: string; displayName: string; isBot: boolean }): Promise<void> {
  await tx.query('INSERT INTO actors (id, workspace_id, display_name, is_bot) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [
    actor.id,
    actor.workspaceId,
    actor.displayName,
    actor.isBot,
  ]);
}

/** Records identities for an actor; an identity that already names someone keeps its actor (merge first). */
export async function addActorIdentities(tx: Queryable, workspaceId: string, actorId: string, identities: readonly ActorIdentity[]): Promise<void> {
  if (identities.length === 0) return;
  await tx.query(
    `INSERT INTO actor_identities (workspace_id, kind, value, actor_id)
     SELECT $1, i.kind, i.value, $2 FROM unnest($3::text[], $4::text[]) AS i(kind, value) ON CONFLICT DO NOTHING`,
    [workspaceId, actorId, identities.map((i) => i.kind), identities.map((i) => i.value)],
  );
}

/** Folds `mergedIds` into `survivorId`: identities and item roles move, the merged actors are deleted. */
export async function mergeActors(tx: Queryable, survivorId: string, mergedIds: readonly string[]): Promise<void> {
  const merged = mergedIds.filter((id) => id !== survivorId);
  if (merged.length === 0) return;
  await tx.query('UPDATE actor_identities SET actor_id = $1 WHERE actor_id = ANY($2::text[])', [survivorId, merged]);
  await tx.query(
    `INSERT INTO item_actors (item_id, actor_id, workspace_id, role)
     SELECT item_id, $1, workspace_id, role FROM item_actors WHERE actor_id = ANY($2::text[]) ON CONFLICT DO NOTHING`,
    [survivorId, merged],
  );
  // The items whose people change take a new number in the items' change feed, which an in-memory read
  // model follows (their rows in `item_actors` move to the survivor without the items themselves changing).
  await tx.query("UPDATE items SET change_seq = nextval('item_change_seq'), change_xid = pg_current_xact_id() WHERE id IN (SELECT item_id FROM item_actors WHERE actor_id = ANY($1::text[]))", [merged]);
  await tx.query('UPDATE actors SET is_bot = is_bot OR EXISTS (SELECT 1 FROM actors m WHERE m.id = ANY($2::text[]) AND m.is_bot) WHERE id = $1', [survivorId, merged]);
  await tx.query('DELETE FROM actors WHERE id = ANY($1::text[])', [merged]);
}

export async function getActors(db: Queryable, ids: readonly string[]): Promise<ActorRow[]> {
  if (ids.length === 0) return [];
  const res = await db.query<{ id: string; workspace_id: string; display_name: string; is_bot: boolean; item_count: number }>(
    'SELECT id, workspace_id, display_name, is_bot, item_count FROM actors WHERE id = ANY($1::text[]) ORDER BY id',
    [[...new Set(ids)]],
  );
  return res.rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id, displayName: r.display_name, isBot: r.is_bot, itemCount: Number(r.item_count) }));
}

/** Each actor's logins (identities of a `login:*` kind), lower-case as stored; an actor with none is absent. */
export async function listActorLogins(db: Queryable, actorIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (actorIds.length === 0) return out;
  const res = await db.query<{ actor_id: string; value: string }>(
    "SELECT actor_id, value FROM actor_identities WHERE actor_id = ANY($1::text[]) AND kind LIKE 'login:%' ORDER BY actor_id, value",
    [[...new Set(actorIds)]],
  );
  for (const r of res.rows) out.set(r.actor_id, [...(out.get(r.actor_id) ?? []), r.value]);
  return out;
}

/**
 * Many actors' changes in three statements, in the caller's transaction: actors created (an id already
 * taken keeps its row), identities recorded (one that already names someone keeps its actor), and
 * existing actors' new display names and bot flags (a flag is only ever raised).
 */
export async function writeActors(
  tx: Queryable,
  workspaceId: string,
  changes: {
    created: readonly { id: string; displayName: string; isBot: boolean }[];
    identities: readonly { actorId: string; kind: string; value: string }[];
    updated: readonly { id: string; displayName: string; isBot: boolean }[];
  },
): Promise<void> {
  const { created, identities, updated } = changes;
  if (created.length > 0) {
    await tx.query(
      `INSERT INTO actors (id, workspace_id, display_name, is_bot)
       SELECT a.id, $1, a.name, a.bot FROM unnest($2::text[], $3::text[], $4::boolean[]) AS a(id, name, bot) ORDER BY a.id ON CONFLICT (id) DO NOTHING`,
      [workspaceId, created.map((a) => a.id), created.map((a) => a.displayName), created.map((a) => a.isBot)],
    );
  }
  if (identities.length > 0) {
    await tx.query(
      `INSERT INTO actor_identities (workspace_id, kind, value, actor_id)
       SELECT $1, i.kind, i.value, i.actor_id FROM unnest($2::text[], $3::text[], $4::text[]) AS i(kind, value, actor_id) ON CONFLICT DO NOTHING`,
      [workspaceId, identities.map((i) => i.kind), identities.map((i) => i.value), identities.map((i) => i.actorId)],
    );
  }
  if (updated.length > 0) {
    await tx.query(
      `UPDATE actors a SET display_name = u.name, is_bot = a.is_bot OR u.bot, updated_at = now()
       FROM unnest($1::text[], $2::text[], $3::boolean[]) AS u(id, name, bot) WHERE a.id = u.id`,
      [updated.map((a) => a.id), updated.map((a) => a.displayName), updated.map((a) => a.isBot)],
    );
  }
}

export async function listActorIdentities(db: Queryable, actorId: string): Promise<ActorIdentity[]> {
  const res = await db.query<ActorIdentity>('SELECT kind, value FROM actor_identities WHERE actor_id = $1 ORDER BY kind, value', [actorId]);
  return res.rows;
}

export async function updateActor(tx: Queryable, actorId: string, change: { displayName?: string; isBot?: boolean }): Promise<void> {
  await tx.query('UPDATE actors SET display_name = COALESCE($2, display_name), is_bot = is_bot OR $3, updated_at = now() WHERE id = $1', [
    actorId,
    change.displayName ?? null,
    change.isBot ?? false,
  ]);
}

/** Replaces an item's actor roles. Returns the actors it had before (their counts change too). */
export async function replaceItemActors(
  tx: Queryable,
  input: { workspaceId: string; itemId: string; roles: readonly { actorId: string; role: string }[] },
): Promise<string[]> {
  const before = await tx.query<{ actor_id: string }>('DELETE FROM item_actors WHERE item_id = $1 RETURNING actor_id', [input.itemId]);
  if (input.roles.length > 0) {
    await tx.query(
      `INSERT INTO item_actors (item_id, actor_id, workspace_id, role)
       SELECT $1, r.actor_id, $2, r.role FROM unnest($3::text[], $4::text[]) AS r(actor_id, role) ON CONFLICT DO NOTHING`,
      [input.itemId, input.workspaceId, input.roles.map((r) => r.actorId), input.roles.map((r) => r.role)],
    );
  }
  return [...new Set(before.rows.map((r) => r.actor_id))];
}

/** Recounts the distinct items of these actors. */
export async function refreshActorItemCounts(tx: Queryable, actorIds: readonly string[]): Promise<void> {
  if (actorIds.length === 0) return;
  await tx.query(
    `UPDATE actors a SET item_count = (SELECT count(DISTINCT item_id) FROM item_actors ia WHERE ia.actor_id = a.id), updated_at = now()
     WHERE a.id = ANY($1::text[])`,
    [[...new Set(actorIds)].sort()],
  );
}

/**
 * Moves actors' item counts by the items they gained or lost (`delta`), without counting their items
 * again: a recount of a prolific author's thousands of items in every indexing batch grew with the
 * workspace. Actors whose items moved otherwise (the survivors of a merge) are counted in full.
 */
export async function adjustActorItemCounts(tx: Queryable, delta: ReadonlyMap<string, number>, recount: readonly string[] = []): Promise<void> {
  const moved = [...delta].filter(([, d]) => d !== 0).sort(([a], [b]) => (a < b ? -1 : 1));
  if (moved.length > 0) {
    await tx.query(
      `UPDATE actors a SET item_count = greatest(0, a.item_count + d.d), updated_at = now()
       FROM unnest($1::text[], $2::int[]) AS d(id, d) WHERE a.id = d.id`,
      [moved.map(([id]) => id), moved.map(([, d]) => d)],
    );
  }
  await refreshActorItemCounts(tx, recount);
}

/** Actors of an item with their roles. */
export async function listItemActors(db: Queryable, itemId: string): Promise<{ actorId: string; role: string; displayName: string }[]> {
  const res = await db.query<{ actor_id: string; role: string; display_name: string }>(
    'SELECT ia.actor_id, ia.role, a.display_name FROM item_actors ia JOIN actors a ON a.id = ia.actor_id WHERE ia.item_id = $1 ORDER BY ia.role, a.display_name',
    [itemId],
  );
  return res.rows.map((r) => ({ actorId: r.actor_id, role: r.role, displayName: r.display_name }));
}

/**
 * `replaceItemActors` for many items of one workspace, in two statements. Returns, per item, the actors
 * it had before.
 */
export async function replaceItemsActors(
  tx: Queryable,
  workspaceId: string,
  items: readonly { itemId: string; roles: readonly { actorId: string; role: string }[] }[],
): Promise<Map<string, string[]>> {
  const previous = new Map<string, string[]>(items.map((i) => [i.itemId, []]));
  if (items.length === 0) return previous;
  const before = await tx.query<{ item_id: string; actor_id: string }>('DELETE FROM item_actors WHERE item_id = ANY($1::text[]) RETURNING item_id, actor_id', [
    items.map((i) => i.itemId),
  ]);
  for (const r of before.rows) {
    const list = previous.get(r.item_id);
    if (list && !list.includes(r.actor_id)) list.push(r.actor_id);
  }
  const rows = items.flatMap((i) => i.roles.map((r) => ({ itemId: i.itemId, ...r })));
  if (rows.length > 0) {
    await tx.query(
      `INSERT INTO item_actors (item_id, actor_id, workspace_id, role)
       SELECT r.item_id, r.actor_id, $1, r.role FROM unnest($2::text[], $3::text[], $4::text[]) AS r(item_id, actor_id, role) ON CONFLICT DO NOTHING`,
      [workspaceId, rows.map((r) => r.itemId), rows.map((r) => r.actorId), rows.map((r) => r.role)],
    );
  }
  return previous;
}
