import type { Db, Queryable } from '../db.js';
import { hashApiKey, newApiKey, newId } from '../crypto.js';

export interface Workspace {
  id: string;
  name: string;
  createdAt: string;
}

export async function createWorkspace(db: Queryable, name: string): Promise<Workspace> {
  const id = newId('ws');
  const res = await db.query<{ created_at: Date }>('INSERT INTO workspaces (id, name) VALUES ($1, $2) RETURNING created_at', [id, name]);
  return { id, name, createdAt: new Date(res.rows[0]!.created_at).toISOString() };
}

export async function getWorkspace(db: Queryable, id: string): Promise<Workspace | null> {
  const res = await db.query<{ id: string; name: string; created_at: Date }>('SELECT id, name, created_at FROM workspaces WHERE id = $1', [id]);
  const row = res.rows[0];
  return row ? { id: row.id, name: row.name, createdAt: new Date(row.created_at).toISOString() } : null;
}

export async function listWorkspaces(db: Queryable): Promise<Workspace[]> {
  const res = await db.query<{ id: string; name: string; created_at: Date }>('SELECT id, name, created_at FROM workspaces ORDER BY created_at');
  return res.rows.map((row) => ({ id: row.id, name: row.name, createdAt: new Date(row.created_at).toISOString() }));
}

/** Creates an API key for a workspace. The plaintext key is returned once; only its hash is stored. */
export async function createApiKey(db: Queryable, workspaceId: string): Promise<{ id: string; key: string; workspaceId: string }> {
  const key = newApiKey();
  const id = newId('key');
  await db.query('INSERT INTO api_keys (id, workspace_id, key_hash, prefix) VALUES ($1, $2, $3, $4)', [id, workspaceId, hashApiKey(key), key.slice(0, 10)]);
  return { id, key, workspaceId };
}

/** The workspace a key belongs to, or null for an unknown or revoked key. */
export async function resolveApiKey(db: Queryable, key: string): Promise<{ keyId: string; workspaceId: string } | null> {
  const res = await db.query<{ id: string; workspace_id: string }>(
    'SELECT id, workspace_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [hashApiKey(key)],
  );
  const row = res.rows[0];
  return row ? { keyId: row.id, workspaceId: row.workspace_id } : null;
}

export async function revokeApiKey(db: Queryable, keyId: string): Promise<boolean> {
  const res = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [keyId]);
  return res.rowCount > 0;
}

export interface ApiKeyInfo {
  id: string;
  workspaceId: string;
  /** The first characters of the key, to recognise it; never the key. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

interface KeyRow {
  id: string;
  workspace_id: string;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}
const toKeyInfo = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  workspaceId: r.workspace_id,
  prefix: r.prefix,
  createdAt: new Date(r.created_at).toISOString(),
  revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
});

/** A workspace's keys (or every key), oldest first, revoked ones included; never a key or its hash. */
export async function listApiKeys(db: Queryable, workspaceId?: string): Promise<ApiKeyInfo[]> {
  const res = workspaceId
    ? await db.query<KeyRow>('SELECT id, workspace_id, prefix, created_at, revoked_at FROM api_keys WHERE workspace_id = $1 ORDER BY created_at, id', [workspaceId])
    : await db.query<KeyRow>('SELECT id, workspace_id, prefix, created_at, revoked_at FROM api_keys ORDER BY created_at, id');
  return res.rows.map(toKeyInfo);
}

export async function getApiKey(db: Queryable, keyId: string): Promise<ApiKeyInfo | null> {
  const res = await db.query<KeyRow>('SELECT id, workspace_id, prefix, created_at, revoked_at FROM api_keys WHERE id = $1', [keyId]);
  return res.rows[0] ? toKeyInfo(res.rows[0]) : null;
}

/**
 * Replaces a live key: a new key for the same workspace, and the old one revoked, in one transaction.
 * Null when the key is unknown or already revoked.
 */
export async function rotateApiKey(db: Db, keyId: string): Promise<{ id: string; key: string; workspaceId: string; revokedKeyId: string } | null> {
  return db.transaction(async (tx) => {
    const old = await tx.query<{ workspace_id: string }>('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING workspace_id', [keyId]);
    const workspaceId = old.rows[0]?.workspace_id;
    if (!workspaceId) return null;
    const created = await createApiKey(tx, workspaceId);
    return { ...created, revokedKeyId: keyId };
  });
}

/**
 * Deletes a workspace and everything in it: keys, connections (with their credentials and cursors),
 * staged events, imports, items and all that hangs off them (foreign keys cascade), and the tables
 * that carry a workspace id without a foreign key. Returns the deleted item ids (the caller removes
 * their vectors from the vector store), or null for an unknown workspace.
 */
export async function deleteWorkspace(db: Db, id: string): Promise<{ itemIds: string[] } | null> {
  return db.transaction(async (tx) => {
    const items = await tx.query<{ id: string }>('SELECT id FROM items WHERE workspace_id = $1', [id]);
    const connections = await tx.query<{ id: string }>('SELECT id FROM connections WHERE workspace_id = $1', [id]);
    const gone = await tx.query('DELETE FROM workspaces WHERE id = $1', [id]);
    if (gone.rowCount === 0) return null;
    for (const table of ['lexicon', 'item_refs', 'entity_mentions', 'actor_identities', 'item_actors', 'cluster_members', 'edges', 'postings']) {
      await tx.query(`DELETE FROM ${table} WHERE workspace_id = $1`, [id]);
    }
    const connectionIds = connections.rows.map((r) => r.id);
    if (connectionIds.length) await tx.query('DELETE FROM webhook_deliveries WHERE connection_id = ANY($1::text[])', [connectionIds]);
    return { itemIds: items.rows.map((r) => r.id) };
  });
}
