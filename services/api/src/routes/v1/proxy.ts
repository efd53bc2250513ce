import { Router } from 'express';
import { z } from 'zod';
import { ProxyCallRequest, ProxySearchRequest } from '@engram/contracts';
import { callProxyAction, listProxyConnections, type ProxyDeps } from '@engram/connectors';
import type { Db } from '@engram/stores';
import { ApiError, notFound, parseBody, validationError } from '../../http/errors.js';
import { route } from '../../http/context.js';
import { authenticate } from './common.js';

/** POST /proxy/search and /proxy/call: one shape on both prefixes; X-Workspace-ID optional. */
export function proxyRoutes(db: Db, deps: ProxyDeps): Router {
  const router = Router();
  router.post(
    '/proxy/search',
    ...authenticate(db, { headerRequired: false }),
    route(async (req, res) => {
      // No body is the documented call; an empty JSON object is accepted too.
      if (req.body !== undefined) parseBody(ProxySearchRequest, req.body);
      res.json({ connections: await listProxyConnections(deps, req.workspaceId), requestId: req.id });
    }),
  );
  router.post(
    '/proxy/call',
    ...authenticate(db, { headerRequired: false }),
    route(async (req, res) => {
      const request = parseBody(ProxyCallRequest, req.body);
      const out = await callProxyAction(deps, req.workspaceId, request);
      switch (out.kind) {
        case 'unknown-connection':
          throw notFound('connection', `no connection ${JSON.stringify(request.connectionId)} in this workspace`);
        case 'unknown-action':
          throw notFound('action', `no connection of this workspace offers action ${JSON.stringify(request.action)}; list them with proxy/search`);
        case 'invalid-params':
          throw validationError(new z.ZodError(out.error.issues.map((i) => ({ ...i, path: ['params', ...i.path] }))));
        case 'provider-timeout':
          throw new ApiError(504, 'UNAVAILABLE', `the provider call timed out: ${out.reason}`, { resource: 'provider', reason: out.reason });
        case 'provider-too-large':
          throw new ApiError(502, 'UNAVAILABLE', `the provider response was too large: ${out.reason}`, { resource: 'provider', reason: out.reason });
        case 'provider-failed':
          throw new ApiError(502, 'UNAVAILABLE', `the provider call failed: ${out.reason}`, { resource: 'provider', reason: out.reason });
        case 'ok':
          res.json({ ...out.result, requestId: req.id });
      }
    }),
  );
  return router;
}
