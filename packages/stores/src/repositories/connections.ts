import type { Queryable } from '../db.js';
import type { SecretBox } from '../crypto.js';
import { newId } from '../crypto.js';

export interface Connection {
  id: string;
  workspaceId: string;
  provider: 'github' | 'linear' | 'vercel';
  /** Non-secret settings: repo, baseUrl, teamKey, projectId ... */
  config: Record<string, string>;
  status: string;
  createdAt: string;
}

/** A connection with its decrypted credentials: only ever held in memory by workers. */
export interface ConnectionWithSecrets extends Connection {
  token: string;
  webhookSecret: string | null;
}

interface Row {
  id: string;
  workspace_id: string;
  provider: Connection['provider'];
  config: Record<string, string>;
  status: string;
  created_at: Date;
  credentials_enc: string;
  webhook_secret_enc: string | null;
}

const toConnection = (r: Row): Connection => ({
  id: r.id,
  workspaceId: r.workspace_id,
  provider: r.provider,
  config: r.config,
  status: r.status,
  createdAt: new Date(r.created_at).toISOString(),
});

export async function createConnection(
  db: Queryable,
  box: SecretBox,
  input: { workspaceId: string; provider: Connection['provider']; config: Record<string, string>; token: string; webhookSecret?: string },
): Promise<Connection> {
  const id = newId('con');
  const res = await db.query<Row>(
    `INSERT INTO connections (id, workspace_id, provider, config, credentials_enc, webhook_secret_enc)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [id, input.workspaceId, input.provider, JSON.stringify(input.config), box.seal(input.token), input.webhookSecret ? box.seal(input.webhookSecret) : null],
  );
  return toConnection(res.rows[0]!);
}

export async function listConnections(db: Queryable, workspaceId?: string): Promise<Connection[]> {
  const res = workspaceId
    ? await db.query<Row>('SELECT * FROM connections WHERE workspace_id = $1 ORDER BY created_at', [workspaceId])
    : await db.query<Row>('SELECT * FROM connections ORDER BY created_at');
  return res.rows.map(toConnection);
}

export async function getConnection(db: Queryable, id: string): Promise<Connection | null> {
  const res = await db.query<Row>('SELECT * FROM connections WHERE id = $1', [id]);
  return res.rows[0] ? toConnection(res.rows[0]) : null;
}

export async function getConnectionWithSecrets(db: Queryable, box: SecretBox, id: string): Promise<ConnectionWithSecrets | null> {
  const res = await db.query<Row>('SELECT * FROM connections WHERE id = $1', [id]);
  const row = res.rows[0];
  if (!row) return null;
  return { ...toConnection(row), token: box.open(row.credentials_enc), webhookSecret: row.webhook_secret_enc ? box.open(row.webhook_secret_enc) : null };
}

export async function setConnectionStatus(db: Queryable, id: string, status: string): Promise<void> {
  await db.query('UPDATE connections SET status = $2, updated_at = now() WHERE id = $1', [id, status]);
}

/**
 * Deletes a connection: its encrypted credentials, sync cursors (cascade) and webhook delivery records.
 * Items it synced stay in the workspace (they are the team's memory; delete the workspace to drop them).
 */
export async function deleteConnection(db: Queryable, id: string): Promise<boolean> {
  const res = await db.query('DELETE FROM connections WHERE id = $1', [id]);
  if (res.rowCount === 0) return false;
  await db.query('DELETE FROM webhook_deliveries WHERE connection_id = $1', [id]);
  return true;
}

/** A connection with a webhook secret, the secret decrypted (in memory only, like `ConnectionWithSecrets`). */
export interface WebhookCandidate extends Connection {
  webhookSecret: string;
}

/**
 * Decrypted webhook secrets by connection id, each kept while the connection's sealed secret is unchanged:
 * a changed secret (a new ciphertext) is decrypted again, and a connection no longer listed (deleted, or its
 * secret removed) is dropped. Unsigned deliveries then cost one query and the HMACs, not a decryption per
 * connection each.
 */
export interface WebhookSecretCache {
  /** Connections whose secret is held. */
  readonly size: number;
  /** The plaintext of `sealed` for connection `id`, decrypting only when it is new or changed. */
  open(id: string, provider: string, sealed: string): string;
  /** Drops every entry of `provider` whose id is not in `listed`. */
  retain(provider: string, listed: ReadonlySet<string>): void;
  forget(id: string): void;
}

export function createWebhookSecretCache(box: SecretBox): WebhookSecretCache {
  const entries = new Map<string, { provider: string; sealed: string; secret: string }>();
  return {
    get size() {
      return entries.size;
    },
    open(id, provider, sealed) {
      const held = entries.get(id);
      if (held && held.sealed === sealed && held.provider === provider) return held.secret;
      const secret = box.open(sealed);
      entries.set(id, { provider, sealed, secret });
      return secret;
    },
    retain(provider, listed) {
      for (const [id, e] of entries) if (e.provider === provider && !listed.has(id)) entries.delete(id);
    },
    forget(id) {
      entries.delete(id);
    },
  };
}

/**
 * The connections of `provider` that have a webhook secret (or the one named `connectionId`), oldest
 * first, secrets opened through `cache`. Reads no credentials.
 */
export async function listWebhookCandidates(db: Queryable, cache: WebhookSecretCache, provider: Connection['provider'], connectionId?: string): Promise<WebhookCandidate[]> {
  const res = connectionId
    ? await db.query<Row>('SELECT id, workspace_id, provider, config, status, created_at, webhook_secret_enc FROM connections WHERE id = $1 AND provider = $2 AND webhook_secret_enc IS NOT NULL', [connectionId, provider])
    : await db.query<Row>('SELECT id, workspace_id, provider, config, status, created_at, webhook_secret_enc FROM connections WHERE provider = $1 AND webhook_secret_enc IS NOT NULL ORDER BY created_at, id', [provider]);
  const out = res.rows.map((r) => ({ ...toConnection(r), webhookSecret: cache.open(r.id, provider, r.webhook_secret_enc!) }));
  if (connectionId) {
    if (out.length === 0) cache.forget(connectionId);
  } else cache.retain(provider, new Set(out.map((c) => c.id)));
  return out;
}
