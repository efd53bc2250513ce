import { Router } from 'express';
import { SearchRequest } from '@engram/contracts';
import type { QueryService } from '@engram/search';
import type { Db } from '@engram/stores';
import { parseBody } from '../../http/errors.js';
import { route } from '../../http/context.js';
import { authenticate, ms } from './common.js';
import { searchShapeA, searchShapeB, shapeOf } from './shapes.js';

/** POST /search: X-Workspace-ID required (spec section 5). */
export function searchRoute(db: Db, queries: QueryService): Router {
  const router = Router();
  router.post(
    '/search',
    ...authenticate(db, { headerRequired: true }),
    route(async (req, res) => {
      const started = performance.now();
      const request = parseBody(SearchRequest, req.body);
      const parse = ms(started);
      const out = await queries.search(req.workspaceId, request, { signal: req.signal });
      const took = ms(started) + ((res.locals.authMs as number | undefined) ?? 0);
      const auth = Math.round(((res.locals.authMs as number | undefined) ?? 0) * 100) / 100;
      res.json(shapeOf(req) === 'A' ? searchShapeA(out, request, Math.round(took * 100) / 100, { auth, parse }, req.id) : searchShapeB(out, req.id));
    }),
  );
  return router;
}
