/**
 * The operator API in the OpenAPI document: `/admin/*` (the `engram` CLI's calls) and `GET /metrics`,
 * all behind the admin token. Request bodies are generated from the same zod schemas the routes parse.
 */
import type { z } from 'zod';
import { CreateWorkspace } from '../admin.js';
import { Backfill, CreateConnection } from '../adminConnections.js';
import { CreateImport } from '../adminImports.js';

type Schema = Record<string, unknown>;

export const ADMIN_SCHEMAS: Record<string, [z.ZodType, 'input']> = {
  AdminCreateWorkspace: [CreateWorkspace, 'input'],
  AdminCreateConnection: [CreateConnection, 'input'],
  AdminBackfill: [Backfill, 'input'],
  AdminCreateImport: [CreateImport, 'input'],
};

interface AdminOperation {
  method: 'get' | 'post' | 'delete';
  path: string;
  summary: string;
  description: string;
  request?: string;
  /** The success status and what it carries. */
  ok: [number, string];
  errors: number[];
  pathParam?: string;
  query?: { name: string; description: string }[];
  /** Not JSON (Prometheus text). */
  text?: boolean;
}

const workspaceFilter = [{ name: 'workspaceId', description: 'Only this workspace.' }];

const ADMIN_OPERATIONS: AdminOperation[] = [
  { method: 'post', path: '/admin/workspaces', summary: 'Create a workspace', description: 'A workspace holds one team\'s connections, items and keys.', request: 'AdminCreateWorkspace', ok: [201, '{id, name, createdAt}'], errors: [400, 401] },
  { method: 'get', path: '/admin/workspaces', summary: 'List workspaces', description: 'Every workspace.', ok: [200, '{workspaces: [...]}'], errors: [401] },
  { method: 'delete', path: '/admin/workspaces/{id}', pathParam: 'id', summary: 'Delete a workspace', description: 'Deletes its items, vectors, connections (their schedules too) and keys.', ok: [200, '{id, deleted: true, items, connections}'], errors: [401, 404] },
  { method: 'post', path: '/admin/workspaces/{id}/keys', pathParam: 'id', summary: 'Create an API key', description: 'The key is shown once, in this answer; it is stored hashed.', ok: [201, '{key, keyId, workspaceId}'], errors: [401, 404] },
  { method: 'get', path: '/admin/keys', query: workspaceFilter, summary: 'List API keys', description: 'Keys without their secret, revoked ones included.', ok: [200, '{keys: [...]}'], errors: [401] },
  { method: 'delete', path: '/admin/keys/{id}', pathParam: 'id', summary: 'Revoke an API key', description: 'Effective on the key\'s next request.', ok: [200, 'the revoked key'], errors: [401, 404] },
  { method: 'post', path: '/admin/keys/{id}/rotate', pathParam: 'id', summary: 'Rotate an API key', description: 'Issues a new key for the same workspace and revokes the old one at once.', ok: [201, '{key, keyId, workspaceId, revokedKeyId}'], errors: [401, 404] },
  { method: 'get', path: '/admin/status', summary: 'Deployment status', description: 'Readiness, the stores in use, queue depths, and every connection with its sync streams.', ok: [200, '{ready, stores, queues, connections}'], errors: [401] },
  {
    method: 'post', path: '/admin/connections', summary: 'Connect a provider', request: 'AdminCreateConnection', ok: [201, 'the connection (no token) and its webhookPath'], errors: [400, 401, 404, 409, 502],
    description: 'The token is checked against the provider first (verify: false skips it), then stored encrypted and never returned. A second connection of the workspace to the same source is 409 CONFLICT. Incremental sync is scheduled.',
  },
  { method: 'get', path: '/admin/connections', query: workspaceFilter, summary: 'List connections', description: 'Connections without their tokens.', ok: [200, '{connections: [...]}'], errors: [401] },
  { method: 'get', path: '/admin/connections/{id}', pathParam: 'id', summary: 'A connection and its sync progress', description: 'Each stream with its counters, rate and ETA (when the provider gave a total).', ok: [200, 'the connection with streams'], errors: [401, 404] },
  { method: 'delete', path: '/admin/connections/{id}', pathParam: 'id', summary: 'Delete a connection', description: 'Its schedule goes too; indexed items stay.', ok: [200, '{id, deleted: true}'], errors: [401, 404] },
  { method: 'post', path: '/admin/connections/{id}/backfill', pathParam: 'id', summary: 'Start a backfill', description: 'Walks the provider from `since` (or from the start) as queued sync pages.', request: 'AdminBackfill', ok: [202, 'the walk, with since'], errors: [400, 401, 404] },
  {
    method: 'post', path: '/admin/imports', summary: 'Import a GitHub export file', request: 'AdminCreateImport', ok: [202, '{importId, received, staged, inserted, invalid, errors}: the events are staged and queued'], errors: [400, 401, 404, 413],
    description: '`content` is the file\'s text (a JSON array or JSON Lines); the same bytes twice are one import. Content that is not an export is 400 naming `content`. Bodies up to ADMIN_MAX_BODY_BYTES.',
  },
  { method: 'get', path: '/admin/imports/{id}', pathParam: 'id', summary: 'Import progress', description: 'Events staged, indexed, failed and pending.', ok: [200, 'the import\'s progress'], errors: [401, 404] },
  { method: 'get', path: '/metrics', summary: 'Prometheus metrics', description: 'Prometheus text format: request latency per operation and mode, search stages, queue depths, job outcomes, sync lag, embedding calls and errors.', ok: [200, 'Prometheus text exposition'], errors: [401], text: true },
];

const ERROR_TEXT: Record<number, string> = {
  400: 'VALIDATION_ERROR naming the fields, or BAD_REQUEST.',
  401: 'UNAUTHORIZED: missing admin token, or one that does not match ADMIN_TOKEN.',
  404: 'NOT_FOUND: data {resource}.',
  409: 'CONFLICT: the workspace already has a connection to this source.',
  413: 'BAD_REQUEST: the body is over ADMIN_MAX_BODY_BYTES.',
  502: 'UNAVAILABLE: the provider could not be reached to check the token (a token it refuses is 400 naming `token`).',
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The `/admin/*` and `/metrics` paths, keyed by path then method. */
export function adminPaths(): Schema {
  const paths: Record<string, Schema> = {};
  for (const op of ADMIN_OPERATIONS) {
    const responses: Schema = {
      [op.ok[0]]: op.text ? { description: op.ok[1], content: { 'text/plain': { schema: { type: 'string' } } } } : { description: op.ok[1], content: { 'application/json': { schema: { type: 'object' } } } },
    };
    for (const status of op.errors) responses[status] = { description: ERROR_TEXT[status], content: { 'application/json': { schema: ref('ErrorBody') } } };
    const parameters = [
      ...(op.pathParam ? [{ name: op.pathParam, in: 'path', required: true, schema: { type: 'string' } }] : []),
      ...(op.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: { type: 'string' } })),
    ];
    paths[op.path] = {
      ...paths[op.path],
      [op.method]: {
        summary: op.summary,
        description: op.description,
        operationId: `admin${op.method[0]!.toUpperCase()}${op.method.slice(1)}${op.path.replace(/\{(\w+)\}/g, 'By$1').replace(/\/(\w)/g, (_m, c: string) => c.toUpperCase())}`,
        tags: ['admin (operators)'],
        security: [{ adminToken: [] }],
        ...(parameters.length ? { parameters } : {}),
        ...(op.request ? { requestBody: { required: true, content: { 'application/json': { schema: ref(op.request) } } } } : {}),
        responses,
      },
    };
  }
  return paths;
}
