import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { metricsFor, type Runtime } from '@engram/runtime';

/** The error body the api answers, so a scraper or the CLI reads a refused /metrics the same way. */
function unauthorized(res: ServerResponse, message: string): void {
  const requestId = randomUUID();
  res
    .writeHead(401, { 'content-type': 'application/json', 'x-request-id': requestId })
    .end(JSON.stringify({ error: 'UNAUTHORIZED', code: 'UNAUTHORIZED', message, status: 401, defined: true, data: null, requestId }));
}

/**
 * The worker's HTTP port: `/healthz` and `/readyz` for the orchestrator, and `/metrics` (Prometheus text,
 * behind the admin token like the api's) with what this process counts: its jobs by queue and outcome,
 * its embedding calls and errors, process stats. Queue depths and sync lag are the api's to expose.
 */
export function createHealthServer(runtime: Runtime): Server {
  const { registry } = metricsFor(runtime, { service: 'engram-worker', deployment: false });
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (path === '/readyz') {
      void runtime.ready().then((ok) => res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ready' : 'unavailable' })));
      return;
    }
    if (path === '/metrics' && req.method === 'GET') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      if (!match) return unauthorized(res, 'admin token required: send "Authorization: Bearer <admin token>"');
      if (!runtime.admin.verify(match[1]!)) return unauthorized(res, "invalid admin token: it does not match this server's admin token");
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: unknown) => {
          runtime.logger.error({ err }, 'metrics collection failed');
          res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed');
        },
      );
      return;
    }
    res.writeHead(404).end();
  });
}
