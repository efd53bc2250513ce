import { Router } from 'express';
import { ProxyCallRequest, ProxySearchRequest } from '@engram/contracts';
import type { QueryService } from '@engram/search';
import type { Db } from '@engram/stores';
import { parseBody } from '../../http/errors.js';
import { route } from '../../http/context.js';
import { authenticate } from './common.js';

/**
 * POST /proxy/search and /proxy/call: one shape on both prefixes; X-Workspace-ID optional. Unknown
 * connection or action (404), params the action rejects (400) and a failed provider (502) are the query
 * service's typed errors, answered by the error middleware. A call still running at the request's
 * deadline, or when the client goes away, is aborted (the provider connection is closed).
 */
export function proxyRoutes(db: Db, queries: QueryService): Router {
  const router = Router();
  router.post(
    '/proxy/search',
    ...authenticate(db, { headerRequired: false }),
    route(async (req, res) => {
      // No body is the documented call; an empty JSON object is accepted too.
      if (req.body !== undefined) parseBody(ProxySearchRequest, req.body);
      res.json({ connections: await queries.proxySearch(req.workspaceId), requestId: req.id });
    }),
  );
  router.post(
    '/proxy/call',
    ...authenticate(db, { headerRequired: false }),
    route(async (req, res) => {
      const request = parseBody(ProxyCallRequest, req.body);
      const result = await queries.proxyCall(req.workspaceId, request, req.signal);
      res.json({ ...result, requestId: req.id });
    }),
  );
  return router;
}
