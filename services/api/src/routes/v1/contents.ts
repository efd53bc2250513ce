import { Router } from 'express';
import { ContentsRequest } from '@engram/contracts';
import type { QueryService } from '@engram/search';
import type { Db } from '@engram/stores';
import { parseBody } from '../../http/errors.js';
import { route } from '../../http/context.js';
import { authenticate } from './common.js';
import { contentsShape, shapeOf } from './shapes.js';

/** POST /contents: X-Workspace-ID optional (the key's workspace applies when absent). */
export function contentsRoute(db: Db, queries: QueryService): Router {
  const router = Router();
  router.post(
    '/contents',
    ...authenticate(db, { headerRequired: false }),
    route(async (req, res) => {
      const { ids } = parseBody(ContentsRequest, req.body);
      const { items, missing } = await queries.contents(req.workspaceId, ids);
      res.json(contentsShape(shapeOf(req), items, missing, req.id));
    }),
  );
  return router;
}
