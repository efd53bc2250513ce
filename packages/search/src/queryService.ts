/**
 * The query side in one place: the six operations the api serves (search, contents, findsimilar, related,
 * proxy/search, proxy/call), each with a typed result. An outcome the caller must tell apart from a fault
 * is a typed error from `@engram/contracts`: `NotFoundError` (unknown item, connection or action),
 * `UpstreamError` (the provider failed), and a `z.ZodError` for proxy params the action rejects (its
 * paths start at `params`). Anything else thrown is a fault.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod';
import {
  NotFoundError,
  SearchRequest,
  UpstreamError,
  type FindSimilarRequest,
  type ProxyCallRequest,
  type ProxySearchResponse,
  type RelatedRequest,
} from '@engram/contracts';
import type { ProxyResult } from '@engram/connectors';
import { listWorkspaces } from '@engram/stores';
import { getContents, type ContentsResult } from './contents.js';
import { findSimilar, type FindSimilarOutcome } from './findSimilar.js';
import { callProxyAction, fetchByUrlThroughConnections, listProxyConnections, type ProxyDeps } from '@engram/connectors';
import type { Reranker } from './rank/types.js';
import { getRelatedGraph, type RelatedGraph } from './related.js';
import { createSearchService, type SearchDeps, type SearchOptions, type SearchOutcome } from './service.js';

/**
 * Why the mode that ran differs from the one requested (`requestedMode` is set): the LLM call failed,
 * no LLM is configured, no reranker is configured, or there was nothing to rerank.
 */
export type FallbackReason = 'llm-failed' | 'no-llm' | 'no-reranker' | 'no-candidates';

export type SearchAnswer = SearchOutcome & { fallbackReason?: FallbackReason };

export interface QueryLogger {
  warn(fields: object, message: string): void;
}

export interface QueryServiceDeps extends SearchDeps {
  /** Connections, their connectors and credentials: proxy operations and find-similar by URL. */
  proxy: ProxyDeps;
  logger?: QueryLogger;
}

export interface QueryService {
  search(workspaceId: string, request: SearchRequest, options?: SearchOptions): Promise<SearchAnswer>;
  contents(workspaceId: string, ids: readonly string[]): Promise<ContentsResult>;
  /** Throws `NotFoundError('item')` for an unknown id, or a URL neither indexed nor fetchable. `signal` cancels the url fetch and embedding. */
  findSimilar(workspaceId: string, request: FindSimilarRequest, options?: { signal?: AbortSignal }): Promise<FindSimilarOutcome>;
  /** Throws `NotFoundError('item')` when the root is not an item of the workspace. */
  related(workspaceId: string, request: RelatedRequest): Promise<RelatedGraph>;
  proxySearch(workspaceId: string): Promise<ProxySearchResponse['connections']>;
  /** Throws `NotFoundError('connection' | 'action')`, `z.ZodError` (params) or `UpstreamError('provider')`. */
  proxyCall(workspaceId: string, request: ProxyCallRequest, signal?: AbortSignal): Promise<ProxyResult>;
  /**
   * Whether the first stage's in-memory indexes (read model, vector mirror) have finished loading, or
   * failed to and left searches on SQL; true where there are none. Searches wait for a load in progress.
   */
  indexesLoaded(): boolean;
}

/** Workspaces whose caches a start warms (a deployment with more warms the rest on their first searches). */
const WARM_WORKSPACES = 20;

/** Set per search call, so a failed LLM call is told apart from a thorough search that never asked one. */
const llmTrace = new AsyncLocalStorage<{ error?: unknown }>();

/** The LLM scorer, recording a failure on the calling search's trace before it is rethrown. */
function traced(llm: Reranker): Reranker {
  return {
    name: llm.name,
    ...(llm.readsAreaSignal !== undefined ? { readsAreaSignal: llm.readsAreaSignal } : {}),
    async rerank(query, candidates, options) {
      try {
        return await llm.rerank(query, candidates, options);
      } catch (error) {
        const trace = llmTrace.getStore();
        if (trace) trace.error = error;
        throw error;
      }
    },
  };
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createQueryService(deps: QueryServiceDeps): QueryService {
  const { proxy, logger, ...searchDeps } = deps;
  const engine = createSearchService({ ...searchDeps, ...(searchDeps.llm ? { llm: traced(searchDeps.llm) } : {}) });
  let loaded = false;
  void Promise.allSettled([engine.readModelLoaded(), deps.vectors.memoryReady?.() ?? Promise.resolve(false)])
    .then(async ([read]) => {
      // Where the indexes are in memory, one search per workspace fills the caches a first search would
      // (centroids, the actor directory): after a restart at 100k items the first search took 4.6 s, most
      // of it loading them, and the next 0.25 s.
      if (read.status === 'fulfilled' && read.value) await warmUp();
    })
    .catch((err: unknown) => logger?.warn({ err: message(err) }, 'search warm-up failed'))
    .finally(() => (loaded = true));

  async function warmUp(): Promise<void> {
    for (const workspace of (await listWorkspaces(deps.db)).slice(0, WARM_WORKSPACES)) {
      await engine.search(workspace.id, SearchRequest.parse({ query: 'recent changes', mode: 'fast', limit: 1 })).catch(() => undefined);
    }
  }

  function fallbackReason(out: SearchOutcome, trace: { error?: unknown }): FallbackReason | undefined {
    if (!out.requestedMode) return undefined;
    if (trace.error !== undefined) return 'llm-failed';
    if (out.total === 0) return 'no-candidates';
    if (out.requestedMode === 'thorough' && !deps.llm) return 'no-llm';
    return deps.reranker ? undefined : 'no-reranker';
  }

  return {
    async search(workspaceId, request, options) {
      const trace: { error?: unknown } = {};
      const out = await llmTrace.run(trace, () => engine.search(workspaceId, request, options));
      if (out.embeddingError !== undefined) {
        logger?.warn({ workspaceId, err: message(out.embeddingError) }, 'search ran without the vector and cluster paths: the query embedding failed');
      }
      const reason = fallbackReason(out, trace);
      if (reason === 'llm-failed') {
        logger?.warn({ workspaceId, requestedMode: out.requestedMode, mode: out.mode, err: message(trace.error) }, 'thorough search fell back: the LLM call failed');
      }
      return reason ? { ...out, fallbackReason: reason } : out;
    },

    contents: (workspaceId, ids) => getContents(deps.db, workspaceId, ids),

    findSimilar: (workspaceId, request, options = {}) =>
      findSimilar(
        { db: deps.db, vectors: deps.vectors, embedder: engine.embedder, read: engine.readModel, fetchByUrl: fetchByUrlThroughConnections(proxy, workspaceId), signal: options.signal },
        workspaceId,
        request,
      ),

    async related(workspaceId, request) {
      const graph = await getRelatedGraph(deps.db, workspaceId, request);
      if (!graph) throw new NotFoundError('item', `no item ${JSON.stringify(request.id)} in this workspace`);
      return graph;
    },

    proxySearch: (workspaceId) => listProxyConnections(proxy, workspaceId),

    indexesLoaded: () => loaded,

    async proxyCall(workspaceId, request, signal) {
      const out = await callProxyAction(proxy, workspaceId, request, signal);
      switch (out.kind) {
        case 'ok':
          return out.result;
        case 'unknown-connection':
          throw new NotFoundError('connection', `no connection ${JSON.stringify(request.connectionId)} in this workspace`);
        case 'unknown-action':
          throw new NotFoundError('action', `no connection of this workspace offers action ${JSON.stringify(request.action)}; list them with proxy/search`);
        case 'invalid-params':
          throw new z.ZodError(out.error.issues.map((i) => ({ ...i, path: ['params', ...i.path] })));
        case 'provider-timeout':
          throw new UpstreamError('provider', out.reason, `the provider call timed out: ${out.reason}`, 504);
        case 'provider-too-large':
          throw new UpstreamError('provider', out.reason, `the provider response was too large: ${out.reason}`);
        case 'provider-failed':
          throw new UpstreamError('provider', out.reason);
      }
    },
  };
}
