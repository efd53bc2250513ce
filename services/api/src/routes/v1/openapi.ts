/** The OpenAPI 3.1 document of the query API, generated from the contract's zod schemas. */
import { z } from 'zod';
import * as api from '@engram/contracts';
import { ADMIN_SCHEMAS, adminPaths } from './openapiAdmin.js';

type Schema = Record<string, unknown>;

const component = (schema: z.ZodType, io: 'input' | 'output'): Schema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Schema;
  return rest;
};

interface Operation {
  path: string;
  summary: string;
  description: string;
  request: string | null;
  /** Response component for Shape A (`/v1`) and Shape B (`/api/v1`); one name when both prefixes share it. */
  response: { A: string; B: string };
  /** X-Workspace-ID: required or optional. */
  workspaceHeader: 'required' | 'optional';
  errors: number[];
  alpha?: boolean;
}

const OPERATIONS: Operation[] = [
  {
    path: '/search', summary: 'Semantic search', request: 'SearchRequest', response: { A: 'SearchResponseA', B: 'SearchResponseB' }, workspaceHeader: 'required', errors: [400, 401, 403],
    description:
      'Vector, entity, cluster and actor retrieval plus lexical full text run in parallel and are fused into one ranking (meta.paths tells which ran). ' +
      'Pages are stable: walking offset += limit until offset + limit >= total returns every result once, and the order does not depend on limit. ' +
      'includeContext false omits `context`; includeHighlights false omits `highlights`. meta.mode is the mode that ran; requestedMode is set when it differs, and fallbackReason says why (llm-failed, no-llm, no-reranker, no-candidates). ' +
      'meta.scoreKind says what score means for that mode: fused (fast), probability (balanced: calibrated, low for broad questions; compare with the first result), llm-blend (thorough).',
  },
  {
    path: '/contents', summary: 'Fetch content items by id', request: 'ContentsRequest', response: { A: 'ContentsResponseA', B: 'ContentsResponseB' }, workspaceHeader: 'optional', errors: [400, 401, 403],
    description:
      'Partial success: unknown ids, ids of other workspaces and ids without a doc_/obs_ prefix are listed in `missing` (never an error). Items come back in request order; duplicates once. ' +
      '`content` is present for observations (obs_) only. Without X-Workspace-ID the key\'s own workspace applies.',
  },
  {
    path: '/findsimilar', summary: 'Find similar content', request: 'FindSimilarRequest', response: { A: 'FindSimilarResponseA', B: 'FindSimilarResponseB' }, workspaceHeader: 'required', errors: [400, 401, 403, 404],
    description:
      'Exactly one of id/url (both or neither: 400 BAD_REQUEST with data {field, reason}). An unknown id, or a url that is neither indexed nor fetchable through a connection, is 404 NOT_FOUND {resource: "item"}. ' +
      'The input item never appears in `similar`.',
  },
  {
    path: '/related', summary: 'Related events as a graph (alpha)', request: 'RelatedRequest', response: { A: 'RelatedResponse', B: 'RelatedResponse' }, workspaceHeader: 'optional', errors: [400, 401, 403, 404], alpha: true,
    description:
      'Breadth-first over linking edges in both directions from the root, up to `depth` hops (1-3, default 1), optionally only edges of `types`, at most `limit` nodes (root included; strongest edges first). ' +
      'Edges are returned only between returned nodes. meta.depth is the requested depth. Unknown id: 404 NOT_FOUND {resource: "item"}.',
  },
  {
    path: '/proxy/search', summary: 'Connections, resources and actions (alpha)', request: null, response: { A: 'ProxySearchResponse', B: 'ProxySearchResponse' }, workspaceHeader: 'optional', errors: [400, 401, 403], alpha: true,
    description: 'No body (an empty JSON object is accepted). Resource params can be spread straight into proxy/call params.',
  },
  {
    path: '/proxy/call', summary: 'Run a provider action (alpha)', request: 'ProxyCallRequest', response: { A: 'ProxyCallResponse', B: 'ProxyCallResponse' }, workspaceHeader: 'optional', errors: [400, 401, 403, 404, 502], alpha: true,
    description:
      'Runs only actions listed by proxy/search: an unknown action is 404 NOT_FOUND {resource: "action"}; an unknown connectionId is 404 {resource: "connection"}. ' +
      'Params are validated against the action (400 VALIDATION_ERROR naming params.<field>). The provider is called with the credentials stored for the connection; ' +
      'the answer is {status, data, headers} with the provider\'s status (a provider 404 is a 200 carrying status 404), no credential and no auth header. A provider that cannot be reached: 502 UNAVAILABLE.',
  },
];

const ERROR_TEXT: Record<number, string> = {
  400: 'VALIDATION_ERROR (schema violation: wrong type, out-of-range value, unknown field, unknown enum value; data.fields names them) or BAD_REQUEST (malformed JSON, missing X-Workspace-ID where required, both/neither of id and url; data {field, reason}).',
  401: 'UNAUTHORIZED: missing or invalid API key.',
  403: 'FORBIDDEN: X-Workspace-ID names a workspace the key may not use, or one that does not exist.',
  404: 'NOT_FOUND: data {resource}.',
  502: 'UNAVAILABLE: the provider could not be reached.',
};

const SCHEMAS: Record<string, [z.ZodType, 'input' | 'output']> = {
  SearchRequest: [api.SearchRequest, 'input'],
  SearchResponseA: [api.SearchResponseA, 'output'],
  SearchResponseB: [api.SearchResponseB, 'output'],
  ContentsRequest: [api.ContentsRequest, 'input'],
  ContentsResponseA: [api.ContentsResponseA, 'output'],
  ContentsResponseB: [api.ContentsResponseB, 'output'],
  FindSimilarRequest: [api.FindSimilarRequest, 'input'],
  FindSimilarResponseA: [api.FindSimilarResponseA, 'output'],
  FindSimilarResponseB: [api.FindSimilarResponseB, 'output'],
  RelatedRequest: [api.RelatedRequest, 'input'],
  RelatedResponse: [api.RelatedResponse, 'output'],
  ProxySearchResponse: [api.ProxySearchResponse, 'output'],
  ProxyCallRequest: [api.ProxyCallRequest, 'input'],
  ProxyCallResponse: [api.ProxyCallResponse, 'output'],
  ErrorBody: [api.ErrorBody, 'output'],
  ...ADMIN_SCHEMAS,
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function operation(op: Operation, shape: 'A' | 'B'): Schema {
  const responses: Schema = {
    200: { description: shape === 'A' ? 'OK (Shape A)' : 'OK (Shape B, alpha reference)', content: { 'application/json': { schema: ref(op.response[shape]) } } },
  };
  for (const status of op.errors) responses[status] = { description: ERROR_TEXT[status], content: { 'application/json': { schema: ref('ErrorBody') } } };
  return {
    summary: op.summary,
    description: op.description,
    operationId: `${shape === 'A' ? 'v1' : 'apiV1'}${op.path.replace(/\/(\w)/g, (_m, c: string) => c.toUpperCase())}`,
    tags: [shape === 'A' ? '/v1 (Shape A)' : '/api/v1 (Shape B)'],
    security: [{ bearer: [] }],
    parameters: [
      {
        name: 'X-Workspace-ID', in: 'header', required: op.workspaceHeader === 'required', schema: { type: 'string' },
        description: op.workspaceHeader === 'required' ? 'Workspace to query (required: missing is 400 BAD_REQUEST).' : 'Workspace to query; the key\'s own workspace when absent.',
      },
    ],
    ...(op.request ? { requestBody: { required: true, content: { 'application/json': { schema: ref(op.request) } } } } : {}),
    responses,
  };
}

export function openApiDocument(): Schema {
  const paths: Schema = {};
  for (const op of OPERATIONS) {
    paths[`/v1${op.path}`] = { post: operation(op, 'A') };
    paths[`/api/v1${op.path}`] = { post: operation(op, 'B') };
  }
  Object.assign(paths, adminPaths());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Engram API',
      version: '1.0.0',
      description:
        'Team memory over GitHub, Linear and Vercel. Every operation is POST with a JSON body on /v1 (Shape A) and /api/v1 (Shape B for search, contents and findsimilar; related and proxy have one shape). ' +
        'Every response carries requestId in the body and the X-Request-Id header. Request objects reject unknown fields (400 VALIDATION_ERROR). ' +
        'Errors: {error, code, message, status, defined, data, requestId}. related, proxy/search, proxy/call and Shape B are alpha. ' +
        'The operator API (/admin/*, /metrics) takes the admin token (ADMIN_TOKEN) instead of an API key.',
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <admin token> (the server\'s ADMIN_TOKEN)' },
      },
      schemas: Object.fromEntries(Object.entries(SCHEMAS).map(([name, [schema, io]]) => [name, component(schema, io)])),
    },
    paths,
  };
}
