/**
 * Key lifecycle and deletion (issue 18): keys are listed without their secret, a revoked key fails on its
 * next request, a rotated key is replaced at once; deleting a connection or a workspace takes its data.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import { createIndexer } from '@engram/indexer';
import { stageAndIndex } from '@engram/indexer/testing';
import { createConnection } from '@engram/stores';
import { ADMIN_TOKEN, startFullServer, type FullServer } from './support/fullServer.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response JSON
type Body = Record<string, any>;

describe('keys, connections and workspaces: list, revoke, rotate, delete', () => {
  let s: FullServer;
  const admin = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> => {
    const res = await fetch(`${s.base}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const contents = async (key: string, workspaceId: string) =>
    (await fetch(`${s.base}/v1/contents`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-workspace-id': workspaceId, 'content-type': 'application/json' }, body: JSON.stringify({ ids: ['obs_x'] }) })).status;

  beforeAll(async () => {
    s = await startFullServer();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('lists keys without secrets; a revoked key is refused on its next request; rotation replaces a key at once', async () => {
    const ws = (await admin('POST', '/workspaces', { name: 'keys' })).body as { id: string };
    const a = (await admin('POST', `/workspaces/${ws.id}/keys`)).body as { key: string; keyId: string };
    const b = (await admin('POST', `/workspaces/${ws.id}/keys`)).body as { key: string; keyId: string };
    expect(await contents(a.key, ws.id)).toBe(200);

    const listed = await admin('GET', `/keys?workspaceId=${ws.id}`);
    expect(listed.body.keys.map((k: Body) => k.id)).toEqual([a.keyId, b.keyId]);
    expect(JSON.stringify(listed.body)).not.toContain(a.key);
    expect(listed.body.keys[0]).toMatchObject({ workspaceId: ws.id, prefix: a.key.slice(0, 10), revokedAt: null });

    const revoked = await admin('DELETE', `/keys/${a.keyId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect(await contents(a.key, ws.id)).toBe(401);
    expect(await contents(b.key, ws.id)).toBe(200);
    expect((await admin('POST', `/keys/${a.keyId}/rotate`)).status).toBe(404);
    expect((await admin('DELETE', '/keys/key_unknown')).status).toBe(404);

    const rotated = await admin('POST', `/keys/${b.keyId}/rotate`);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ workspaceId: ws.id, revokedKeyId: b.keyId });
    expect(await contents(b.key, ws.id)).toBe(401);
    expect(await contents(rotated.body.key as string, ws.id)).toBe(200);
  });

  it('the CLI lists, rotates and revokes keys', async () => {
    const t = await s.tenant();
    const cli = async (args: string[]) => {
      const r = await promisify(execFile)('node', ['services/cli/bin/engram.js', '--url', s.base, '--admin-token', ADMIN_TOKEN, '--json', ...args], { cwd: join(import.meta.dirname, '../../..') });
      return JSON.parse(r.stdout) as Body;
    };
    expect((await cli(['key', 'list', '--workspace', t.workspaceId])).keys).toHaveLength(1);
    const rotated = await cli(['key', 'rotate', '--key', t.keyId]);
    expect(await contents(t.key, t.workspaceId)).toBe(401);
    expect(await contents(rotated.key as string, t.workspaceId)).toBe(200);
    await cli(['key', 'revoke', '--key', rotated.keyId as string]);
    expect(await contents(rotated.key as string, t.workspaceId)).toBe(401);
  }, 120_000);

  it('deleting a connection removes it and its credentials; deleting a workspace removes its keys, items and vectors', async () => {
    const t = await s.tenant();
    const conn = await createConnection(s.runtime.db, s.runtime.secretBox, { workspaceId: t.workspaceId, provider: 'github', config: { repo: 'acme/widgets' }, token: 'ghp_x', webhookSecret: 'whsec_delete_me' });
    const indexer = createIndexer({ db: s.runtime.db, vectors: s.runtime.vectors, embedder: s.runtime.embedder });
    const events = [1, 2, 3].map((n) =>
      SourceEvent.parse({
        source: 'github', type: 'issue', externalId: `github:acme/widgets:issue:${n}`, url: `https://github.com/acme/widgets/issues/${n}`,
        title: `Crash number ${n}`, body: 'The printer crashes', occurredAt: '2026-11-01T10:00:00Z', updatedAt: '2026-11-01T10:00:00Z', container: 'acme/widgets',
      }),
    );
    await stageAndIndex(s.runtime.db, indexer, t.workspaceId, events);
    const count = async (table: string) => Number((await s.runtime.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = $1`, [t.workspaceId])).rows[0]!.n);
    expect(await count('items')).toBe(3);
    expect(await s.runtime.vectors.count(t.workspaceId)).toBeGreaterThan(0);

    expect((await admin('DELETE', `/connections/${conn.id}`)).status).toBe(200);
    expect((await admin('GET', `/connections/${conn.id}`)).status).toBe(404);
    expect((await admin('DELETE', `/connections/${conn.id}`)).status).toBe(404);
    expect(await count('items')).toBe(3);

    const deleted = await admin('DELETE', `/workspaces/${t.workspaceId}`);
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true, items: 3 } });
    for (const table of ['items', 'api_keys', 'connections', 'source_events', 'entities', 'actors', 'lexicon', 'postings']) expect(await count(table), table).toBe(0);
    expect(await s.runtime.vectors.count(t.workspaceId)).toBe(0);
    expect(await contents(t.key, t.workspaceId)).toBe(401);
    expect((await admin('DELETE', `/workspaces/${t.workspaceId}`)).status).toBe(404);
  });
});
