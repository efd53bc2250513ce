import express, { type Router } from 'express';
import type { Runtime } from '@engram/runtime';
import { runInteractive } from '@engram/stores';
import { jsonBody, rawBody } from './http/body.js';
import { closeWhenDraining } from './http/draining.js';
import { requestDeadline } from './http/deadline.js';
import { errorMiddleware, notFound } from './http/errors.js';
import { requestContext } from './http/context.js';
import { createRequestLimits, limitByIp, type RequestLimits } from './http/limits.js';
import { rejectUnstorableUrl } from './http/url.js';
import { adminRoutes, requireAdmin } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';
import { metricsMiddleware, metricsRoutes } from './metrics/wiring.js';
import { queueBoardRoutes } from './metrics/queueBoard.js';

export interface AppRoutes {
  /** Mounted at both `/v1` and `/api/v1`; each router decides its shape from `req.baseUrl`. */
  api?: Router[];
  admin?: Router[];
  /** Mounted at `/mcp`: the MCP tools over streamable HTTP, on the same QueryService as `api`. */
  mcp?: Router;
  /** Mounted at `/webhooks`; receives the raw body (signatures are over bytes). */
  webhooks?: Router;
  /** Mounted at `/`: OpenAPI document and docs page. */
  docs?: Router;
  /** Mounted at `/`: the search console (static files). */
  console?: Router;
  /** False while the search's in-memory indexes load: `/readyz` answers 503 `loading` meanwhile. */
  searchReady?: () => boolean;
}

/**
 * The app. `app.locals.limits` holds the rate limits (closed by the caller with `closeAppLimits`);
 * `app.locals.draining = true` makes every response close its connection (shutdown).
 */
export function createApp(runtime: Runtime, routes: AppRoutes = {}, options: { limits?: RequestLimits } = {}): express.Express {
  const app = express();
  const http = runtime.config.http;
  const limits = options.limits ?? createRequestLimits(runtime.config.rateLimits, { redisUrl: runtime.config.redisUrl });
  app.locals.limits = limits;
  app.locals.draining = false;
  app.disable('x-powered-by');
  // No ETags: the API answers POSTs and offers no conditional requests, and hashing every JSON body (12 KB
  // for a page of search results) cost ~25 us a response. The console's static files keep their own.
  app.set('etag', false);
  app.set('trust proxy', true);
  app.use(closeWhenDraining);
  app.use(requestContext(runtime.logger));
  app.use(metricsMiddleware(runtime));
  app.use(rejectUnstorableUrl);
  app.use(healthRoutes(runtime, routes.searchReady));
  app.use(metricsRoutes(runtime));
  // Webhooks: counted per IP (nothing else identifies an unsigned sender), read raw up to a small limit,
  // and signature-checked before anything parses them.
  const deadline = requestDeadline(http.requestDeadlineMs);
  if (routes.webhooks) app.use('/webhooks', deadline, limitByIp(limits), rawBody(http.webhookMaxBytes), routes.webhooks);
  const queueBoard = queueBoardRoutes(runtime);
  if (queueBoard) app.use(queueBoard.router);
  app.locals.closeQueueBoard = () => queueBoard?.close() ?? Promise.resolve();
  // Admin: the token is checked before the (large: export files) body is read.
  app.use('/admin', requireAdmin(runtime), express.json({ limit: http.adminMaxBodyBytes }), adminRoutes(runtime, routes.admin));
  const json = jsonBody(http.maxBodyBytes);
  // Queries are what someone waits for: on the embedded default their statements go before background
  // jobs' in the database thread's queue.
  app.use(['/v1', '/api/v1', '/mcp'], (_req, _res, next) => runInteractive(next));
  app.use(['/v1', '/api/v1'], deadline);
  for (const prefix of ['/v1', '/api/v1']) {
    for (const r of routes.api ?? []) app.use(prefix, json, r);
  }
  if (routes.mcp) app.use('/mcp', deadline, routes.mcp);
  if (routes.docs) app.use(routes.docs);
  if (routes.console) app.use(routes.console);
  app.use((req, _res, next) => next(notFound('route', `no route for ${req.method} ${req.path}`)));
  app.use(errorMiddleware);
  return app;
}

/** Releases what `createApp` opened (the rate limiter's Redis connection). */
export async function closeAppLimits(app: express.Express): Promise<void> {
  await (app.locals.limits as RequestLimits | undefined)?.close();
}
