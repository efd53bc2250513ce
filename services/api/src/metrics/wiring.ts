/**
 * Everything that feeds the metrics, in one place: a request middleware (latency per operation and mode,
 * and the search response's `latency` fields), the embedders wrapped in place (so the indexer and the
 * search service, which already hold them, are counted), and `GET /metrics` behind the admin token.
 *
 * Job outcomes: the queue's own counts (`engram_queue_jobs`) are read at scrape time, and every handler
 * run this process makes is counted through the queue's observer hook (`observeJob`, retries included).
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Runtime } from '@engram/runtime';
import { requireAdmin } from '../routes/admin.js';
import { createMetrics, type Metrics } from './registry.js';

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

const byRuntime = new WeakMap<Runtime, Metrics>();

/** The runtime's metrics, created (and its embedders instrumented) on first use. */
export function metricsFor(runtime: Runtime): Metrics {
  let metrics = byRuntime.get(runtime);
  if (!metrics) {
    metrics = createMetrics(runtime);
    byRuntime.set(runtime, metrics);
    instrumentEmbedder(runtime.embedder, 'index', metrics);
    instrumentEmbedder(runtime.queryEmbedder, 'query', metrics);
    const counted = metrics;
    runtime.queue.observe({ onJob: (event) => counted.observeJob(event) });
  }
  return metrics;
}

function instrumentEmbedder(embedder: Runtime['queryEmbedder'], use: 'index' | 'query', metrics: Metrics): void {
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (texts, options) => {
    const started = performance.now();
    try {
      const out = await embed(texts, options);
      metrics.observeEmbedding(use, texts.length, (performance.now() - started) / 1000, false);
      return out;
    } catch (err) {
      metrics.observeEmbedding(use, texts.length, (performance.now() - started) / 1000, true);
      throw err;
    }
  };
}

/** Records every request when it finishes; reads a search response's mode and latency on the way out. */
export function metricsMiddleware(runtime: Runtime): RequestHandler {
  const metrics = metricsFor(runtime);
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
    const { registry } = metricsFor(runtime);
    registry.metrics().then((text) => {
      res.setHeader('content-type', registry.contentType);
      res.send(text);
    }, next);
  });
  return router;
}
