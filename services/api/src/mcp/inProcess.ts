/**
 * The `EngramPort` behind `/mcp`: the same QueryService the `/v1` routes call, in this process, with the
 * routes' request schemas, checks and Shape A renderers. So a tool call is validated and shaped exactly as
 * the same call over `/v1`, without a second HTTP request, and a failure carries the documented code.
 */
import { ContentsRequest, RelatedRequest, SearchRequest, type FindSimilarRequest } from '@engram/contracts';
import type { EngramPort, PortError } from '@engram/mcp';
import type { Logger } from '@engram/runtime';
import type { QueryService } from '@engram/search';
import { ApiError, operationError, parseBody } from '../http/errors.js';
import { ms } from '../routes/v1/common.js';
import { findSimilarRequest } from '../routes/v1/findSimilar.js';
import { relatedShape } from '../routes/v1/related.js';
import { contentsShapeA, findSimilarShapeA, searchShapeA } from '../routes/v1/shapes.js';

export class InProcessError extends Error implements PortError {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly requestId: string,
  ) {
    super(message);
    this.name = 'InProcessError';
  }
}

export interface InProcessTarget {
  workspaceId: string;
  /** The `/mcp` request's id: every tool answer and error carries it. */
  requestId: string;
  /** The request's logger (its `workspaceId` is bound once). */
  log: Logger;
  /** A search's latency fields, for the metrics the `/v1/search` route feeds. */
  onSearch?: (mode: string, latency: Record<string, number>) => void;
  /** The `/mcp` request's signal (its deadline, the client going away): cancels the calls a tool makes. */
  signal?: AbortSignal;
}

export function inProcessPort(queries: QueryService, target: InProcessTarget): EngramPort {
  const { workspaceId, requestId, log } = target;
  const cancel = target.signal ? { signal: target.signal } : {};
  const call = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const out = await run();
      log.info({ operation, ms: ms(started) }, 'mcp tool call');
      return out;
    } catch (err) {
      const known = operationError(err);
      const error = known ?? new ApiError(500, 'INTERNAL_ERROR', 'server error', null);
      if (known) log.warn({ operation, code: error.code, status: error.status, msg: error.message }, 'mcp tool call rejected');
      else log.error({ operation, err }, 'mcp tool call failed');
      throw new InProcessError(error.message, error.code, error.status, requestId);
    }
  };
  return {
    search: (input) =>
      call('search', async () => {
        const started = performance.now();
        const request = parseBody(SearchRequest, input);
        const parse = ms(started);
        const out = await queries.search(workspaceId, request, cancel);
        const response = searchShapeA(out, request, ms(started), { parse }, requestId);
        target.onSearch?.(response.meta.mode, response.latency);
        return response;
      }),
    contents: (ids) =>
      call('contents', async () => {
        const request = parseBody(ContentsRequest, { ids });
        const { items, missing } = await queries.contents(workspaceId, request.ids);
        return contentsShapeA(items, missing, requestId);
      }),
    findSimilar: (input) =>
      call('findsimilar', async () => {
        const started = performance.now();
        const request: FindSimilarRequest = findSimilarRequest(input);
        const out = await queries.findSimilar(workspaceId, request, cancel);
        return findSimilarShapeA(out, ms(started), requestId);
      }),
    related: (input) =>
      call('related', async () => {
        const started = performance.now();
        const request = parseBody(RelatedRequest, input);
        const graph = await queries.related(workspaceId, request);
        return relatedShape(graph, ms(started), requestId);
      }),
  };
}
