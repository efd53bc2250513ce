/**
 * `/mcp`: the Engram tools over MCP's streamable HTTP transport, stateless (a fresh server and transport
 * per request, JSON answers, no session), behind the same API key as `/v1`. GET and DELETE are 405: a
 * stateless server opens no event stream and holds no session to end.
 */
import express, { Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createEngramMcpServer } from '@engram/mcp';
import type { QueryService } from '@engram/search';
import type { Db } from '@engram/stores';
import { requireApiKey, route } from '../http/context.js';
import { inProcessPort, type InProcessTarget } from './inProcess.js';

/**
 * `queries` is the QueryService the `/v1` routes call (one per process). `onSearch` receives each tool
 * search's mode and latency fields (the metrics).
 */
export function mcpRoutes(db: Db, queries: QueryService, options: { onSearch?: InProcessTarget['onSearch'] } = {}): Router {
  const router = Router();
  router.post(
    '/',
    express.json({ limit: '1mb' }),
    requireApiKey(db, { headerRequired: false }),
    route(async (req, res) => {
      const port = inProcessPort(queries, { workspaceId: req.workspaceId, requestId: req.id, log: req.log, onSearch: options.onSearch, signal: req.signal });
      const server = createEngramMcpServer(port);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    }),
  );
  const notAllowed: express.RequestHandler = (_req, res) => {
    res.setHeader('Allow', 'POST');
    res.status(405).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST' }, id: null });
  };
  router.get('/', notAllowed);
  router.delete('/', notAllowed);
  return router;
}
