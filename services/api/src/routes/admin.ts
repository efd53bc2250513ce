import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Runtime } from '@engram/runtime';
import { createApiKey, createWorkspace, getWorkspace, listConnections, listSyncCursors, listWorkspaces } from '@engram/stores';
import { notFound, parseBody, unauthorized } from '../http/errors.js';
import { route } from '../http/context.js';
import { limitsOf } from '../http/limits.js';

const CreateWorkspace = z.object({ name: z.string().trim().min(1).max(200) }).strict();

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
    (limits ? limits.admitIp(req.ip ?? 'unknown') : Promise.resolve()).then(() => next(unauthorized('admin token required')), next);
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
