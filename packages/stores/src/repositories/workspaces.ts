import type { Queryable } from '../db.js';
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
