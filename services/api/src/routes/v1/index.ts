import type { Router } from 'express';
import { connectorFor, type ProxyDeps } from '@engram/connectors';
import type { Runtime } from '@engram/runtime';
import { contentsRoute } from './contents.js';
import { findSimilarRoute } from './findSimilar.js';
import type { SearchEngine } from './ports.js';
import { proxyRoutes } from './proxy.js';
import { relatedRoute } from './related.js';
import { searchRoute } from './search.js';

export type { SearchEngine, SearchOutcome, FindSimilarOutcome } from './ports.js';

export interface V1Deps {
  /** The search engine (`createSearchService(...)` from @engram/search). */
  search: SearchEngine;
  /** Builds a stored connection's connector; defaults to the production registry. */
  connectorFor?: ProxyDeps['connectorFor'];
}

/**
 * The six query operations. `createApp` mounts each router at both `/v1` (Shape A) and `/api/v1`
 * (Shape B for search, contents and findsimilar).
 */
export function v1Routes(runtime: Runtime, deps: V1Deps): Router[] {
  const proxy: ProxyDeps = {
    db: runtime.db,
    secretBox: runtime.secretBox,
    connectorFor: deps.connectorFor ?? ((c) => connectorFor(c)),
    timeoutMs: runtime.config.proxy.timeoutMs,
    maxResponseBytes: runtime.config.proxy.maxResponseBytes,
    onBrokenConnection: (connectionId, error) =>
      runtime.logger.warn({ connectionId, err: error instanceof Error ? error.message : String(error) }, 'connection unusable for proxy/fetch'),
  };
  return [
    searchRoute(runtime.db, deps.search),
    contentsRoute(runtime.db),
    findSimilarRoute(runtime.db, deps.search, proxy),
    relatedRoute(runtime.db),
    proxyRoutes(runtime.db, proxy),
  ];
}
