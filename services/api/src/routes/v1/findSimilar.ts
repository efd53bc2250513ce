import { Router } from 'express';
import { FindSimilarRequest } from '@engram/contracts';
import type { QueryService } from '@engram/search';
import type { Db } from '@engram/stores';
import { badRequest, parseBody } from '../../http/errors.js';
import { route } from '../../http/context.js';
import { authenticate, ms } from './common.js';
import { findSimilarShape, shapeOf } from './shapes.js';

/** Parses a findsimilar body: the schema, then exactly one of id and url (400 otherwise). */
export function findSimilarRequest(body: unknown): FindSimilarRequest {
  const request = parseBody(FindSimilarRequest, body);
  if (request.id !== undefined && request.url !== undefined) throw badRequest('id', 'provide exactly one of id and url, not both');
  if (request.id === undefined && request.url === undefined) throw badRequest('id', 'one of id or url is required');
  return request;
}

/**
 * POST /findsimilar: exactly one of id/url; X-Workspace-ID required (spec section 5). An unknown id or an
 * unresolvable url is the query service's `NotFoundError`, which the error middleware answers with 404.
 */
export function findSimilarRoute(db: Db, queries: QueryService): Router {
  const router = Router();
  router.post(
    '/findsimilar',
    ...authenticate(db, { headerRequired: true }),
    route(async (req, res) => {
      const started = performance.now();
      const request = findSimilarRequest(req.body);
      const out = await queries.findSimilar(req.workspaceId, request, { signal: req.signal });
      res.json(findSimilarShape(shapeOf(req), out, ms(started), req.id));
    }),
  );
  return router;
}
