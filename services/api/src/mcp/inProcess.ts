/**
 * The `EngramPort` behind `/mcp`: the api's own `/v1` routes, called on this process's listening socket
 * with the caller's key and resolved workspace. So an MCP tool call is authenticated, validated, shaped,
 * logged and measured exactly as the same call over `/v1`. One file on purpose: point it at a shared
 * query service instead when the routes call one.
 */
import type { EngramPort, PortError } from '@engram/mcp';

export class LoopbackError extends Error implements PortError {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'LoopbackError';
  }
}

export interface LoopbackTarget {
  /** `http://<address>:<port>` of the socket the MCP request arrived on. */
  base: string;
  apiKey: string;
  workspaceId: string;
  /** Passed on as `X-Request-Id` prefix so the inner requests can be found from the outer one. */
  requestId: string;
}

export function inProcessPort(target: LoopbackTarget): EngramPort {
  let n = 0;
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${target.base}/v1${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${target.apiKey}`,
        'x-workspace-id': target.workspaceId,
        'x-request-id': `${target.requestId}.${++n}`.slice(0, 128),
      },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new LoopbackError(String(json.message ?? `HTTP ${res.status}`), String(json.code ?? `HTTP_${res.status}`), res.status, json.requestId as string | undefined);
    return json as T;
  };
  return {
    search: (request) => post('/search', request),
    contents: (ids) => post('/contents', { ids }),
    findSimilar: (request) => post('/findsimilar', request),
    related: (request) => post('/related', request),
  };
}
