/**
 * Provider proxy: which connections a workspace has, what each can do, and running one listed action
 * with the credentials stored for the connection. Nothing returned carries a credential. Every call is
 * bounded: a deadline whose AbortSignal reaches the provider client, and a cap on the response size.
 */
import { z } from 'zod';
import type { ProxyCallRequest, ProxySearchResponse, SourceEvent } from '@engram/contracts';
import { getConnectionWithSecrets, listConnections, type ConnectionWithSecrets, type Queryable, type SecretBox } from '@engram/stores';
import type { Connector, ProxyAction, ProxyResult } from '../types.js';
import { DEFAULT_PROXY_MAX_RESPONSE_BYTES, DEFAULT_PROXY_TIMEOUT_MS, jsonBytes, ProxyLimitError, withDeadline } from './limits.js';

export { cappedFetch, DEFAULT_PROXY_MAX_RESPONSE_BYTES, DEFAULT_PROXY_TIMEOUT_MS, ProxyLimitError, withDeadline } from './limits.js';

export interface ProxyDeps {
  db: Queryable;
  secretBox: SecretBox;
  /** Builds the connector of a stored connection (throws when its config cannot make one). */
  connectorFor: (connection: ConnectionWithSecrets) => Connector;
  /** Told about a connection whose connector cannot be built; it is left out of the listing. */
  onBrokenConnection?: (connectionId: string, error: unknown) => void;
  /** Deadline of one provider call (default 15 s) and the most response bytes read (default 5 MB). */
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface WorkspaceConnector {
  connection: ConnectionWithSecrets;
  connector: Connector;
}

/** The workspace's connections with their connectors, oldest first; broken ones are reported and skipped. */
export async function workspaceConnectors(deps: ProxyDeps, workspaceId: string): Promise<WorkspaceConnector[]> {
  const out: WorkspaceConnector[] = [];
  for (const c of await listConnections(deps.db, workspaceId)) {
    const connection = await getConnectionWithSecrets(deps.db, deps.secretBox, c.id);
    if (!connection) continue;
    try {
      out.push({ connection, connector: deps.connectorFor(connection) });
    } catch (error) {
      deps.onBrokenConnection?.(c.id, error);
    }
  }
  return out;
}

/** Parameter names of an action: the keys of its zod object schema. */
export function paramNames(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

export async function listProxyConnections(deps: ProxyDeps, workspaceId: string): Promise<ProxySearchResponse['connections']> {
  return (await workspaceConnectors(deps, workspaceId)).map(({ connection, connector }) => ({
    id: connection.id,
    provider: connection.provider,
    resources: connector.resources(),
    actions: connector.actions().map((a) => ({ action: a.action, params: paramNames(a.params), description: a.description })),
  }));
}

export type ProxyCallOutcome =
  | { kind: 'ok'; result: ProxyResult }
  | { kind: 'unknown-connection' }
  | { kind: 'unknown-action' }
  | { kind: 'invalid-params'; error: z.ZodError }
  | { kind: 'provider-failed'; reason: string }
  | { kind: 'provider-timeout'; reason: string }
  | { kind: 'provider-too-large'; reason: string };

/** Header names never handed back, whatever a connector lets through. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-github-token)$/i;

/** Removes credential-bearing headers and every occurrence of the connection's token. */
export function scrubResult(result: ProxyResult, token: string): ProxyResult {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers)) {
    if (!SECRET_HEADER.test(name) && !(token && value.includes(token))) headers[name.toLowerCase()] = value;
  }
  let data: unknown = result.data ?? null;
  if (token && data !== null) {
    const text = JSON.stringify(data);
    if (text.includes(token)) data = JSON.parse(text.split(token).join('[redacted]')) as unknown;
  }
  return { status: result.status, data, headers };
}

/** Runs a listed action on the named connection, or on the oldest connection offering it. */
export async function callProxyAction(deps: ProxyDeps, workspaceId: string, request: ProxyCallRequest, signal?: AbortSignal): Promise<ProxyCallOutcome> {
  let built = await workspaceConnectors(deps, workspaceId);
  if (request.connectionId) {
    built = built.filter((b) => b.connection.id === request.connectionId);
    if (built.length === 0) return { kind: 'unknown-connection' };
  }
  let chosen: { action: ProxyAction; token: string } | undefined;
  for (const b of built) {
    const action = b.connector.actions().find((a) => a.action === request.action);
    if (action) {
      chosen = { action, token: b.connection.token };
      break;
    }
  }
  if (!chosen) return { kind: 'unknown-action' };
  const params = chosen.action.params.safeParse(request.params);
  if (!params.success) return { kind: 'invalid-params', error: params.error };
  const maxResponseBytes = deps.maxResponseBytes ?? DEFAULT_PROXY_MAX_RESPONSE_BYTES;
  const action = chosen.action;
  try {
    const result = await withDeadline(deps.timeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS, signal, (s) => action.run(params.data, s, { maxResponseBytes }));
    // Clients that buffer whole responses (GraphQL, REST SDKs) are capped here, on what would be returned.
    if (jsonBytes(result.data) > maxResponseBytes) throw new ProxyLimitError('too-large', `the provider response is larger than ${maxResponseBytes} bytes`);
    return { kind: 'ok', result: scrubResult(result, chosen.token) };
  } catch (error) {
    const limit = error instanceof ProxyLimitError ? error : (error as { cause?: unknown })?.cause instanceof ProxyLimitError ? ((error as { cause: ProxyLimitError }).cause) : null;
    const raw = limit ? limit.message : error instanceof Error ? error.message : String(error);
    const reason = chosen.token ? raw.split(chosen.token).join('[redacted]') : raw;
    if (limit?.kind === 'timeout') return { kind: 'provider-timeout', reason };
    if (limit?.kind === 'too-large') return { kind: 'provider-too-large', reason };
    return { kind: 'provider-failed', reason };
  }
}

/**
 * Fetches a provider URL through the workspace's connections (first one that recognises it). A provider
 * failure counts as "not fetchable" and is reported through `onBrokenConnection`.
 */
export function fetchByUrlThroughConnections(deps: ProxyDeps, workspaceId: string) {
  return async (url: string, signal?: AbortSignal): Promise<SourceEvent | null> => {
    for (const { connection, connector } of await workspaceConnectors(deps, workspaceId)) {
      try {
        const event = await withDeadline(deps.timeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS, signal, (s) => connector.fetchByUrl(url, s));
        if (event) return event;
      } catch (error) {
        deps.onBrokenConnection?.(connection.id, error);
      }
    }
    return null;
  };
}
