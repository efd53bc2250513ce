import express, { type Router } from 'express';
import type { Runtime } from '@engram/runtime';
import { errorMiddleware, notFound } from './http/errors.js';
import { requestContext } from './http/context.js';
import { adminRoutes } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';

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
  app.use(healthRoutes(runtime));
  if (routes.webhooks) app.use('/webhooks', express.raw({ type: () => true, limit: '25mb' }), routes.webhooks);
  app.use('/admin', express.json({ limit: '200mb' }), adminRoutes(runtime, routes.admin));
  const json = express.json({ limit: '1mb', type: () => true });
  for (const prefix of ['/v1', '/api/v1']) {
    for (const r of routes.api ?? []) app.use(prefix, json, r);
  }
  if (routes.docs) app.use(routes.docs);
  app.use((req, _res, next) => next(notFound('route', `no route for ${req.method} ${req.path}`)));
  app.use(errorMiddleware);
  return app;
}
