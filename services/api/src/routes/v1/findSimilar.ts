import { Router } from 'express';
import { FindSimilarRequest } from '@engram/contracts';
import { fetchByUrlThroughConnections, type ProxyDeps } from '@engram/connectors';
import type { Db } from '@engram/stores';
import { badRequest, notFound, parseBody } from '../../http/errors.js';
import { route } from '../../http/context.js';
import { authenticate, ms } from './common.js';
import type { SearchEngine } from './ports.js';
import { findSimilarShape, shapeOf } from './shapes.js';

async function itemExists(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const res = await db.query('SELECT 1 FROM items WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return res.rows.length > 0;
}

/** POST /findsimilar: exactly one of id/url; X-Workspace-ID required (spec section 5). */
export function findSimilarRoute(db: Db, engine: SearchEngine, proxy: ProxyDeps): Router {
  const router = Router();
  router.post(
    '/findsimilar',
    ...authenticate(db, { headerRequired: true }),
    route(async (req, res) => {
      const started = performance.now();
      const request = parseBody(FindSimilarRequest, req.body);
      if (request.id !== undefined && request.url !== undefined) throw badRequest('id', 'provide exactly one of id and url, not both');
      if (request.id === undefined && request.url === undefined) throw badRequest('id', 'one of id or url is required');
      if (request.id !== undefined && !(await itemExists(db, req.workspaceId, request.id))) {
        throw notFound('item', `no item ${JSON.stringify(request.id)} in this workspace`);
      }
      const out = await engine
        .findSimilar(req.workspaceId, request, { fetchByUrl: fetchByUrlThroughConnections(proxy, req.workspaceId) })
        .catch((error: unknown) => {
          // The engine signals an input it cannot resolve with a NotFoundError; anything else is ours (500).
          if (error instanceof Error && error.name === 'NotFoundError') return null;
          throw error;
        });
      if (!out) {
        throw request.url !== undefined
          ? notFound('item', 'the url is neither indexed nor fetchable through a connection of this workspace')
          : notFound('item', `no item ${JSON.stringify(request.id)} in this workspace`);
      }
      res.json(findSimilarShape(shapeOf(req), out, ms(started), req.id));
    }),
  );
  return router;
}
