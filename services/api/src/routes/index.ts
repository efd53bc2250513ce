import type { Runtime } from '@engram/runtime';
import type { AppRoutes } from '../app.js';
import { adminConnectionRoutes } from './adminConnections.js';
import { adminImportRoutes } from './adminImports.js';
import { consoleRoutes } from './console.js';
import { docsRoutes } from './docs.js';
import { queryServiceFor, v1Routes } from './v1/index.js';
import { mcpRoutes } from '../mcp/routes.js';
import { apiMetrics } from '../metrics/wiring.js';
import { webhookRoutes } from './webhooks.js';

/** Every router the api mounts. */
export function allRoutes(runtime: Runtime): AppRoutes {
  const queries = queryServiceFor(runtime);
  const metrics = apiMetrics(runtime);
  return {
    api: v1Routes(runtime, queries),
    mcp: mcpRoutes(runtime.db, queries, { onSearch: (mode, latency) => metrics.observeSearchLatency(mode, latency) }),
    admin: [adminConnectionRoutes(runtime), adminImportRoutes(runtime)],
    webhooks: runtime.config.webhooks ? webhookRoutes(runtime) : undefined,
    docs: docsRoutes(),
    console: consoleRoutes(),
    searchReady: () => queries.indexesLoaded(),
  };
}
