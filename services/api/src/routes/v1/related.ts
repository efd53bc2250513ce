import { Router } from 'express';
import type { z } from 'zod';
import { RelatedRequest, type RelatedResponse } from '@engram/contracts';
import type { QueryService, RelatedGraph } from '@engram/search';
import type { Db } from '@engram/stores';
import { parseBody } from '../../http/errors.js';
import { route } from '../../http/context.js';
import { authenticate, ms } from './common.js';

/** The one shape of a related answer. */
export function relatedShape(graph: RelatedGraph, took: number, requestId: string): z.infer<typeof RelatedResponse> {
  return {
    data: { root: graph.root, nodes: graph.nodes, edges: graph.edges },
    meta: { depth: graph.depth, nodeCount: graph.nodes.length, edgeCount: graph.edges.length, took },
    requestId,
  };
}

/** POST /related: one shape on both prefixes; X-Workspace-ID optional; an unknown root is 404 (NotFoundError). */
export function relatedRoute(db: Db, queries: QueryService): Router {
  const router = Router();
  router.post(
    '/related',
    ...authenticate(db, { headerRequired: false }),
    route(async (req, res) => {
      const started = performance.now();
      const request = parseBody(RelatedRequest, req.body);
      const graph = await queries.related(req.workspaceId, request);
      res.json(relatedShape(graph, ms(started), req.id));
    }),
  );
  return router;
}
