import type { Router } from 'express';
import { connectorFor, type ProxyDeps } from '@engram/connectors';
import { createQueryService, type QueryService } from '@engram/search';
import type { Runtime } from '@engram/runtime';
import { contentsRoute } from './contents.js';
import { findSimilarRoute } from './findSimilar.js';
import { proxyRoutes } from './proxy.js';
import { relatedRoute } from './related.js';
import { searchRoute } from './search.js';

/**
 * The query service over the runtime's stores, models and connections. `connectorFor` builds a stored
 * connection's connector (default: the production registry).
 */
export function queryServiceFor(runtime: Runtime, options: { connectorFor?: ProxyDeps['connectorFor'] } = {}): QueryService {
  return createQueryService({
    db: runtime.db,
    vectors: runtime.vectors,
    embedder: runtime.queryEmbedder,
    read: runtime.searchRead(),
    ...(runtime.config.searchConcurrency !== undefined ? { concurrency: runtime.config.searchConcurrency } : {}),
    contextStalenessMs: runtime.config.searchContextStalenessMs,
    ...runtime.rankers,
    logger: runtime.logger,
    proxy: {
      db: runtime.db,
      secretBox: runtime.secretBox,
      connectorFor: options.connectorFor ?? ((c) => connectorFor(c)),
      timeoutMs: runtime.config.proxy.timeoutMs,
      maxResponseBytes: runtime.config.proxy.maxResponseBytes,
      onBrokenConnection: (connectionId, error) =>
        runtime.logger.warn({ connectionId, err: error instanceof Error ? error.message : String(error) }, 'connection unusable for proxy/fetch'),
    },
  });
}

/**
 * The six query operations, each a router that parses, calls the query service and renders. `createApp`
 * mounts each at both `/v1` (Shape A) and `/api/v1` (Shape B for search, contents and findsimilar).
 */
export function v1Routes(runtime: Runtime, queries: QueryService = queryServiceFor(runtime)): Router[] {
  return [
    searchRoute(runtime.db, queries),
    contentsRoute(runtime.db, queries),
    findSimilarRoute(runtime.db, queries),
    relatedRoute(runtime.db, queries),
    proxyRoutes(runtime.db, queries),
  ];
}
