import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { execute, parse, validate, type DocumentNode } from 'graphql';
import { linearFixture, type FakeLinearData } from './fixture.js';
import { linearRootValue } from './resolvers.js';
import { buildLinearSchema } from './schema.js';
import { listenOnLoopback } from '../listen.js';

export { linearFixture, fakeLinearId } from './fixture.js';
export type * from './fixture.js';

export interface FakeLinearOptions {
  /** Personal API key expected verbatim in `Authorization` (Linear sends personal keys without `Bearer`). */
  apiKey: string;
  data?: FakeLinearData;
  /** At most `limit` requests per `windowMs` window; then RATELIMITED until the window resets. */
  rateLimit?: { limit: number; windowMs: number; status?: 400 | 429 };
  /** After `afterRequests` requests, the next `count` answer `status` (default 503) with a plain-text body. */
  failBursts?: Array<{ afterRequests: number; count: number; status?: number }>;
}

export interface FakeLinearState {
  data: FakeLinearData;
  /** Authenticated POST /graphql requests received, including refused ones. */
  requests: number;
  rateLimited: number;
  failed: number;
  /** Operation names of the queries executed, in order. */
  operations: string[];
}

export interface FakeLinear { url: string; close(): Promise<void>; state: FakeLinearState }

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/** A Linear GraphQL API on 127.0.0.1: real execution over in-memory data, auth, rate limits and 5xx bursts. */
export async function startFakeLinear(options: FakeLinearOptions): Promise<FakeLinear> {
  const schema = buildLinearSchema();
  const state: FakeLinearState = { data: options.data ?? linearFixture(), requests: 0, rateLimited: 0, failed: 0, operations: [] };
  let window = { start: 0, count: 0 };

  const rateLimitHeaders = (limit: number, remaining: number, resetMs: number) => ({
    'x-ratelimit-requests-limit': String(limit),
    'x-ratelimit-requests-remaining': String(Math.max(remaining, 0)),
    'x-ratelimit-requests-reset': String(resetMs),
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method !== 'POST' || path !== '/graphql') return json(res, 404, { errors: [{ message: 'Not found' }] });
    const raw = await readBody(req);
    if (req.headers.authorization !== options.apiKey) {
      return json(res, 400, {
        errors: [{
          message: 'Authentication required, not authenticated',
          extensions: { type: 'authentication error', code: 'AUTHENTICATION_ERROR', statusCode: 401, userError: true, userPresentableMessage: 'You need to authenticate to access this operation.' },
        }],
      });
    }
    state.requests += 1;
    const burst = options.failBursts?.find((b) => state.requests > b.afterRequests && state.requests <= b.afterRequests + b.count);
    if (burst) {
      state.failed += 1;
      res.writeHead(burst.status ?? 503, { 'content-type': 'text/plain' });
      return res.end('upstream connect error or disconnect/reset before headers. reset reason: overflow');
    }
    let headers: Record<string, string> = {};
    if (options.rateLimit) {
      const { limit, windowMs, status = 400 } = options.rateLimit;
      const now = Date.now();
      if (now - window.start >= windowMs) window = { start: now, count: 0 };
      window.count += 1;
      headers = rateLimitHeaders(limit, limit - window.count, window.start + windowMs);
      if (window.count > limit) {
        state.rateLimited += 1;
        return json(res, status, {
          errors: [{ message: 'Rate limit exceeded', extensions: { code: 'RATELIMITED', userPresentableMessage: 'Too many requests, please slow down.' } }],
        }, headers);
      }
    }
    let body: { query?: unknown; variables?: unknown; operationName?: unknown };
    let document: DocumentNode;
    try {
      body = JSON.parse(raw) as typeof body;
      if (typeof body.query !== 'string') throw new Error('Must provide query string.');
      document = parse(body.query);
    } catch (error) {
      return json(res, 400, { errors: [{ message: (error as Error).message, extensions: { type: 'graphql error', code: 'GRAPHQL_PARSE_FAILED' } }] }, headers);
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) {
      return json(res, 400, { errors: invalid.map((e) => ({ ...e.toJSON(), extensions: { type: 'graphql error', code: 'GRAPHQL_VALIDATION_FAILED' } })) }, headers);
    }
    const op = document.definitions.find((d) => d.kind === 'OperationDefinition');
    state.operations.push(op && 'name' in op && op.name ? op.name.value : 'anonymous');
    const result = await execute({
      schema, document, rootValue: linearRootValue(state.data),
      variableValues: (body.variables ?? {}) as Record<string, unknown>,
      operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
    });
    return json(res, 200, result, headers);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => json(res, 500, { errors: [{ message: String(error) }] }));
  });
  const { origin, close } = await listenOnLoopback(server);
  return { url: `${origin}/graphql`, state, close };
}
