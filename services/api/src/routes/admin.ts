import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Runtime } from '@engram/runtime';
import { incrementalScheduleKey } from '@engram/connectors';
import { StorableString } from '@engram/contracts';
import { createApiKey, createWorkspace, deleteWorkspace, getApiKey, getWorkspace, listApiKeys, listConnections, listSyncCursors, listWorkspaces, revokeApiKey, rotateApiKey } from '@engram/stores';
import { notFound, parseBody, unauthorized } from '../http/errors.js';
import { route } from '../http/context.js';
import { limitsOf } from '../http/limits.js';

export const CreateWorkspace = z.object({ name: StorableString().trim().min(1).max(200) }).strict();
/** Chunks of item ids whose vectors go when their workspace does. */
const VECTOR_DELETE_CHUNK = 1_000;

/**
 * Admin token guard: `Authorization: Bearer <admin token>` (constant-time compare). A wrong or missing
 * token counts against the client IP's limit.
 */
export function requireAdmin(runtime: Runtime) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
    if (match && runtime.admin.verify(match[1]!)) {
      next();
      return;
    }
    const limits = limitsOf(req.app.locals);
    (limits ? limits.admitIp(req.ip ?? 'unknown') : Promise.resolve()).then(
      () => next(unauthorized(match ? "invalid admin token: it does not match this server's admin token" : 'admin token required: send "Authorization: Bearer <admin token>"')),
      next,
    );
  };
}

/** Operator endpoints under /admin; the `engram` CLI is their client. */
export function adminRoutes(runtime: Runtime, extra: Router[] = []): Router {
  const router = Router();
  router.use(requireAdmin(runtime));
  const { db } = runtime;

  router.post(
    '/workspaces',
    route(async (req, res) => {
      const body = parseBody(CreateWorkspace, req.body);
      const ws = await createWorkspace(db, body.name);
      res.status(201).json(ws);
    }),
  );
  router.get(
    '/workspaces',
    route(async (_req, res) => {
      res.json({ workspaces: await listWorkspaces(db) });
    }),
  );
  router.post(
    '/workspaces/:id/keys',
    route(async (req, res) => {
      const id = String(req.params.id);
      if (!(await getWorkspace(db, id))) throw notFound('workspace');
      const key = await createApiKey(db, id);
      res.status(201).json({ key: key.key, keyId: key.id, workspaceId: key.workspaceId });
    }),
  );
  router.delete(
    '/workspaces/:id',
    route(async (req, res) => {
      const id = String(req.params.id);
      const connections = await listConnections(db, id);
      const deleted = await deleteWorkspace(db, id);
      if (!deleted) throw notFound('workspace');
      for (const c of connections) await runtime.queue.unschedule(incrementalScheduleKey(c.id));
      for (let i = 0; i < deleted.itemIds.length; i += VECTOR_DELETE_CHUNK) {
        await runtime.vectors.deleteItems(id, deleted.itemIds.slice(i, i + VECTOR_DELETE_CHUNK));
      }
      res.json({ id, deleted: true, items: deleted.itemIds.length, connections: connections.length });
    }),
  );
  // Keys: listed without their secret; revocation is effective on the key's next request (every request
  // resolves the key in the database); rotation issues a new key and revokes the old one at once.
  router.get(
    '/keys',
    route(async (req, res) => {
      const workspaceId = typeof req.query.workspaceId === 'string' ? req.query.workspaceId : undefined;
      res.json({ keys: await listApiKeys(db, workspaceId) });
    }),
  );
  router.delete(
    '/keys/:id',
    route(async (req, res) => {
      const id = String(req.params.id);
      const key = await getApiKey(db, id);
      if (!key) throw notFound('key');
      await revokeApiKey(db, id);
      res.json(await getApiKey(db, id));
    }),
  );
  router.post(
    '/keys/:id/rotate',
    route(async (req, res) => {
      const rotated = await rotateApiKey(db, String(req.params.id));
      if (!rotated) throw notFound('key', 'key not found or already revoked');
      res.status(201).json({ key: rotated.key, keyId: rotated.id, workspaceId: rotated.workspaceId, revokedKeyId: rotated.revokedKeyId });
    }),
  );
  router.get(
    '/status',
    route(async (_req, res) => {
      const [ready, depths, connections] = await Promise.all([runtime.ready(), runtime.queue.depths(), listConnections(db)]);
      const withCursors = await Promise.all(
        connections.map(async (c) => ({ id: c.id, workspaceId: c.workspaceId, provider: c.provider, config: c.config, status: c.status, streams: await listSyncCursors(db, c.id) })),
      );
      res.json({
        ready,
        stores: {
          database: runtime.db.kind,
          vectors: runtime.vectors.kind,
          queue: runtime.queue.kind,
          embedding: { model: runtime.embedder.model, dimensions: runtime.embedder.dimensions },
        },
        queues: depths,
        connections: withCursors,
      });
    }),
  );
  for (const r of extra) router.use(r);
  return router;
}
