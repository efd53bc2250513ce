import type { Runtime } from '@engram/runtime';
import type { AppRoutes } from '../app.js';
import { adminConnectionRoutes } from './adminConnections.js';
import { adminImportRoutes } from './adminImports.js';
import { docsRoutes } from './docs.js';
import { v1Routes } from './v1/index.js';
import { webhookRoutes } from './webhooks.js';

/** Every router the api mounts. */
export function allRoutes(runtime: Runtime): AppRoutes {
  return {
    api: v1Routes(runtime),
    admin: [adminConnectionRoutes(runtime), adminImportRoutes(runtime)],
    webhooks: runtime.config.webhooks ? webhookRoutes(runtime) : undefined,
    docs: docsRoutes(),
  };
}
