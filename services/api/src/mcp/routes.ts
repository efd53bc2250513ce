/**
 * `/mcp`: the Engram tools over MCP's streamable HTTP transport, stateless (a fresh server and transport
 * per request, JSON answers, no session), behind the same API key as `/v1`. GET and DELETE are 405: a
 * stateless server opens no event stream and holds no session to end.
 */
import express, { Router, type Request } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createEngramMcpServer } from '@engram/mcp';
import type { Db } from '@engram/stores';
import { requireApiKey, route } from '../http/context.js';
import { inProcessPort } from './inProcess.js';

const selfBase = (req: Request): string => {
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
};

export function mcpRoutes(db: Db): Router {
  const router = Router();
  router.post(
    '/',
    express.json({ limit: '1mb' }),
    requireApiKey(db, { headerRequired: false }),
    route(async (req, res) => {
      const apiKey = /^Bearer\s+(\S+)/i.exec(req.header('authorization') ?? '')![1]!;
      const port = inProcessPort({ base: selfBase(req), apiKey, workspaceId: req.workspaceId, requestId: req.id });
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
