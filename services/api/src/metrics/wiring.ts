/**
 * The api's side of the metrics (the registry is `@engram/runtime`'s, shared with the worker): a request
 * middleware (latency per operation and mode, and the search response's `latency` fields) and
 * `GET /metrics` behind the admin token.
 *
 * Job outcomes: the queue's own counts (`engram_queue_jobs`) are read at scrape time, and every handler
 * run this process makes is counted through the queue's observer hook (`observeJob`, retries included).
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { metricsFor, type Metrics, type Runtime } from '@engram/runtime';
import { requireAdmin } from '../routes/admin.js';

const V1_OPERATIONS = new Map([
  ['/search', 'search'],
  ['/contents', 'contents'],
  ['/findsimilar', 'findsimilar'],
  ['/related', 'related'],
  ['/proxy/search', 'proxy_search'],
  ['/proxy/call', 'proxy_call'],
  ['/openapi.json', 'openapi'],
]);
const MODES = new Set(['fast', 'balanced', 'thorough']);

/** A bounded operation name for a request path (never the raw path: ids would explode the series). */
export function operationOf(path: string): string {
  const v1 = /^\/(?:api\/)?v1(\/.*)$/.exec(path);
  if (v1) return V1_OPERATIONS.get(v1[1]!) ?? 'v1_unknown';
  if (path === '/mcp' || path.startsWith('/mcp/')) return 'mcp';
  if (path.startsWith('/admin/')) return 'admin';
  if (path === '/healthz' || path === '/readyz') return 'health';
  if (path === '/metrics') return 'metrics';
  if (path.startsWith('/webhooks/')) return 'webhooks';
  return 'other';
}

/** The api's metrics: its requests, and the deployment-wide gauges (queue depths, sync lag). */
export const apiMetrics = (runtime: Runtime): Metrics => metricsFor(runtime, { service: 'engram-api', deployment: true });

/** Records every request when it finishes; reads a search response's mode and latency on the way out. */
export function metricsMiddleware(runtime: Runtime): RequestHandler {
  const metrics = apiMetrics(runtime);
  return (req: Request, res: Response, next) => {
    const started = performance.now();
    const operation = operationOf(req.path);
    let mode: string | undefined;
    if (operation === 'search') {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        const b = body as { meta?: { mode?: unknown }; latency?: Record<string, number> } | null;
        if (typeof b?.meta?.mode === 'string' && MODES.has(b.meta.mode)) {
          mode = b.meta.mode;
          if (b.latency) metrics.observeSearchLatency(mode, b.latency);
        }
        return json(body);
      };
    }
    res.on('finish', () => {
      const requested = (req.body as { mode?: unknown } | undefined)?.mode;
      const m = operation === 'search' ? (mode ?? (typeof requested === 'string' && MODES.has(requested) ? requested : 'balanced')) : 'none';
      metrics.observeRequest({ operation, mode: m, status: res.statusCode }, (performance.now() - started) / 1000);
    });
    next();
  };
}

/** `GET /metrics`: Prometheus text format, behind the admin token (labels name workspaces and connections). */
export function metricsRoutes(runtime: Runtime): Router {
  const router = Router();
  router.get('/metrics', requireAdmin(runtime), (_req, res, next) => {
    const { registry } = apiMetrics(runtime);
    registry.metrics().then((text) => {
      res.setHeader('content-type', registry.contentType);
      res.send(text);
    }, next);
  });
  return router;
}
