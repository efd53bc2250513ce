import express, { type Router } from 'express';
import type { Runtime } from '@engram/runtime';
import { errorMiddleware, MALFORMED_BODY, notFound } from './http/errors.js';
import { requestContext } from './http/context.js';
import { adminRoutes } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';
import { mcpRoutes } from './mcp/routes.js';
import { metricsMiddleware, metricsRoutes } from './metrics/wiring.js';
import { queueBoardRoutes } from './metrics/queueBoard.js';

export interface AppRoutes {
  /** Mounted at both `/v1` and `/api/v1`; each router decides its shape from `req.baseUrl`. */
  api?: Router[];
  admin?: Router[];
  /** Mounted at `/webhooks`; receives the raw body (signatures are over bytes). */
  webhooks?: Router;
  /** Mounted at `/`: OpenAPI document and docs page. */
  docs?: Router;
}

export function createApp(runtime: Runtime, routes: AppRoutes = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.use(requestContext(runtime.logger));
  app.use(metricsMiddleware(runtime));
  app.use(healthRoutes(runtime));
  app.use(metricsRoutes(runtime));
  if (routes.webhooks) app.use('/webhooks', express.raw({ type: () => true, limit: '25mb' }), routes.webhooks);
  const queueBoard = queueBoardRoutes(runtime);
  if (queueBoard) app.use(queueBoard.router);
  app.locals.closeQueueBoard = () => queueBoard?.close() ?? Promise.resolve();
  app.use('/admin', express.json({ limit: '200mb' }), adminRoutes(runtime, routes.admin));
  const parse = express.json({ limit: '1mb', type: () => true });
  const json: express.RequestHandler = (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      const status = (err as { status?: number } | undefined)?.status;
      if (err && status === 400) {
        req.body = MALFORMED_BODY;
        next();
      } else next(err);
    });
  for (const prefix of ['/v1', '/api/v1']) {
    for (const r of routes.api ?? []) app.use(prefix, json, r);
  }
  app.use('/mcp', mcpRoutes(runtime.db));
  if (routes.docs) app.use(routes.docs);
  app.use((req, _res, next) => next(notFound('route', `no route for ${req.method} ${req.path}`)));
  app.use(errorMiddleware);
  return app;
}
