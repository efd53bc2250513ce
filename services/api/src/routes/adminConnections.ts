/** Operator endpoints for connections: create (tokens encrypted, never returned), list, inspect, backfill. */
import { Router } from 'express';
import { z } from 'zod';
import { connectorFor, incrementalScheduleKey, scheduleIncrementalSync, startBackfill } from '@engram/connectors';
import type { Runtime } from '@engram/runtime';
import { createConnection, deleteConnection, getConnection, getWorkspace, listConnections, listSyncCursors, type SyncCursor } from '@engram/stores';
import { ApiError, badRequest, notFound, parseBody } from '../http/errors.js';
import { route } from '../http/context.js';
import { checkProviderAccess, duplicateOf } from './connectionCheck.js';

const url = z.string().url();
const common = {
  workspaceId: z.string().min(1),
  token: z.string().min(1),
  webhookSecret: z.string().min(8).optional(),
  /** false: save without the provider check (a provider this server cannot reach yet). */
  verify: z.boolean().optional(),
};
export const CreateConnection = z.discriminatedUnion('provider', [
  z.object({ ...common, provider: z.literal('github'), config: z.object({ repo: z.string().regex(/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/, 'expected "owner/name"'), baseUrl: url.optional() }).strict() }).strict(),
  z.object({ ...common, provider: z.literal('linear'), config: z.object({ teamKey: z.string().min(1).optional(), apiUrl: url.optional() }).strict().default({}) }).strict(),
  z.object({ ...common, provider: z.literal('vercel'), config: z.object({ projectId: z.string().min(1), teamId: z.string().min(1).optional(), baseUrl: url.optional() }).strict() }).strict(),
]);
export const Backfill = z.object({ since: z.iso.datetime({ offset: true }).or(z.iso.date()).optional() }).strict();

/** A walk's counters plus what a progress bar needs: rate and ETA (when the provider gave a total). */
export function walkProgress(c: SyncCursor, now = Date.now()) {
  const elapsedMs = c.startedAt ? Math.max((c.completedAt ? Date.parse(c.completedAt) : now) - Date.parse(c.startedAt), 0) : 0;
  const itemsPerSecond = elapsedMs > 0 ? c.items / (elapsedMs / 1000) : 0;
  const remaining = c.totalHint !== null ? Math.max(c.totalHint - c.items, 0) : null;
  const etaSeconds = c.state === 'done' ? 0 : remaining !== null && itemsPerSecond > 0 ? Math.round(remaining / itemsPerSecond) : null;
  return { ...c, cursor: undefined, elapsedMs, itemsPerSecond: Math.round(itemsPerSecond * 10) / 10, etaSeconds };
}

export function adminConnectionRoutes(runtime: Runtime): Router {
  const router = Router();
  const { db } = runtime;

  router.post(
    '/connections',
    route(async (req, res) => {
      const body = parseBody(CreateConnection, req.body);
      if (!(await getWorkspace(db, body.workspaceId))) throw notFound('workspace');
      const config = Object.fromEntries(Object.entries(body.config).filter(([, v]) => v !== undefined)) as Record<string, string>;
      const duplicate = duplicateOf(await listConnections(db, body.workspaceId), body.provider, config);
      if (duplicate) {
        throw new ApiError(409, 'CONFLICT', `this workspace already has a ${body.provider} connection to the same source: ${duplicate.id}`, { resource: 'connection', connectionId: duplicate.id });
      }
      let connector;
      try {
        connector = connectorFor({ provider: body.provider, config, token: body.token });
      } catch (err) {
        throw badRequest('config', err instanceof Error ? err.message : String(err));
      }
      if (body.verify !== false) await checkProviderAccess(connector, body.provider, config, AbortSignal.timeout(30_000));
      const connection = await createConnection(db, runtime.secretBox, {
        workspaceId: body.workspaceId, provider: body.provider, config, token: body.token, ...(body.webhookSecret ? { webhookSecret: body.webhookSecret } : {}),
      });
      await scheduleIncrementalSync(runtime, connection.id, runtime.config.syncIntervalMs);
      res.status(201).json({ ...connection, webhookPath: `/webhooks/${connection.provider}${connection.provider === 'github' ? '' : `?connection=${connection.id}`}` });
    }),
  );

  router.get(
    '/connections',
    route(async (req, res) => {
      const workspaceId = typeof req.query.workspaceId === 'string' ? req.query.workspaceId : undefined;
      res.json({ connections: await listConnections(db, workspaceId) });
    }),
  );

  router.get(
    '/connections/:id',
    route(async (req, res) => {
      const connection = await getConnection(db, String(req.params.id));
      if (!connection) throw notFound('connection');
      const now = Date.now();
      res.json({ ...connection, streams: (await listSyncCursors(db, connection.id)).map((c) => walkProgress(c, now)) });
    }),
  );

  router.delete(
    '/connections/:id',
    route(async (req, res) => {
      const id = String(req.params.id);
      if (!(await deleteConnection(db, id))) throw notFound('connection');
      await runtime.queue.unschedule(incrementalScheduleKey(id));
      res.json({ id, deleted: true });
    }),
  );

  router.post(
    '/connections/:id/backfill',
    route(async (req, res) => {
      const body = parseBody(Backfill, req.body ?? {});
      const since = body.since ? new Date(body.since).toISOString() : null;
      const walk = await startBackfill({ db: runtime.db, queue: runtime.queue, secretBox: runtime.secretBox, logger: runtime.logger }, { connectionId: String(req.params.id), since });
      if (!walk) throw notFound('connection');
      res.status(202).json({ ...walk, since });
    }),
  );
  return router;
}
