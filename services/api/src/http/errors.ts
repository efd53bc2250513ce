import type { ErrorRequestHandler, Request } from 'express';
import { z } from 'zod';
import { NotFoundError, UpstreamError, type ErrorCode } from '@engram/contracts';
import { isStoreUnavailable } from './unavailable.js';

/** An error with an HTTP status and a stable code; `expected` errors are the client's, logged at warn. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly data: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
  get expected(): boolean {
    return this.status < 500;
  }
}

export const badRequest = (field: string, reason: string, message = 'invalid request'): ApiError =>
  new ApiError(400, 'BAD_REQUEST', message, { field, reason });
export const unauthorized = (message = 'missing or invalid authentication'): ApiError => new ApiError(401, 'UNAUTHORIZED', message, null);
export const forbidden = (message = 'access denied to this workspace'): ApiError => new ApiError(403, 'FORBIDDEN', message, null);
export const notFound = (resource: string, message = `${resource} not found`): ApiError => new ApiError(404, 'NOT_FOUND', message, { resource });

/**
 * Turns a zod error into 400 VALIDATION_ERROR naming every offending field. An unknown key is named
 * itself (`limt`, `filters.sourceType`): zod reports it on the object that holds it, one issue per object.
 */
export function validationError(error: z.ZodError): ApiError {
  const issues = error.issues.flatMap((i): { field: string; message: string; code: string }[] =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((key) => ({ field: [...i.path, key].join('.'), message: `unknown field '${key}'`, code: i.code }))
      : [{ field: i.path.join('.') || '(body)', message: i.message, code: i.code }],
  );
  const fields = [...new Set(issues.map((i) => i.field))];
  return new ApiError(400, 'VALIDATION_ERROR', `invalid request parameters: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, { fields, issues });
}

/**
 * Marks a body that failed to parse. The JSON parser runs before routes, but authentication must answer
 * first (a malformed body without a key is 401, not 400), so the parse error is kept and raised here.
 */
export const MALFORMED_BODY: unique symbol = Symbol('malformed body');
/** Marks a body over the size limit; raised as 413 by `parseBody`, after authentication. */
export const TOO_LARGE_BODY: unique symbol = Symbol('body too large');
const tooLarge = (): ApiError => new ApiError(413, 'BAD_REQUEST', 'request body too large', { field: '(body)', reason: 'too large' });

/** Parses a request body against a schema or throws the documented 400. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === MALFORMED_BODY) throw badRequest('(body)', 'malformed JSON', 'invalid request: malformed JSON body');
  if (body === TOO_LARGE_BODY) throw tooLarge();
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('(body)', 'the request body must be a JSON object', 'invalid request: the body must be a JSON object');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/**
 * The documented error for what an operation throws (its own `ApiError`, the query service's typed
 * errors, a zod error); null for anything else. Shared by the error middleware and the in-process MCP port.
 */
export function operationError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof NotFoundError) return notFound(err.resource, err.message);
  if (err instanceof UpstreamError) return new ApiError(err.status, 'UNAVAILABLE', err.message, { resource: err.resource, reason: err.reason });
  if (err instanceof z.ZodError) return validationError(err);
  return null;
}

export const requestIdOf = (req: Request): string => (req as Request & { id?: string }).id ?? 'unknown';

/**
 * The one error middleware: every failure becomes the documented body, readable by both the alpha
 * reference (`code`, `status`, `defined`, `data`) and the older one (`error`, `message`). Nothing a client
 * sends produces a stack trace.
 */
export const errorMiddleware: ErrorRequestHandler = (err, req, res, _next) => {
  const requestId = requestIdOf(req);
  const apiError = operationError(err) ?? requestError(err);
  // The handler answered after its deadline's 503 went out: nothing to send, nothing new to log.
  if (res.headersSent && res.locals.deadlinePassed === true) {
    res.end();
    return;
  }
  const log = (req as Request & { log?: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void } }).log;
  // The client closed the connection and its request's work was aborted: nobody to answer, no fault.
  if ((req as Request & { signal?: AbortSignal }).signal?.aborted && res.locals.deadlinePassed !== true) {
    log?.info({ requestId }, 'request abandoned by the client');
    return;
  }
  if (apiError.expected) log?.warn({ requestId, code: apiError.code, status: apiError.status, msg: apiError.message }, 'request rejected');
  else if (apiError.status === 503) log?.warn({ requestId, code: apiError.code, msg: apiError.message, err: (err as Error).message }, 'request unavailable');
  else log?.error({ requestId, err }, 'request failed');
  if (res.headersSent) {
    res.end();
    return;
  }
  const retryAfter = (apiError.data as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  if ((apiError.status === 429 || apiError.status === 503) && typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
  const send = () =>
    res.status(apiError.status).json({
      error: apiError.code,
      code: apiError.code,
      message: apiError.message,
      status: apiError.status,
      defined: true,
      data: apiError.data,
      requestId,
    });
  // A body nobody read (a 401 answered before parsing): discard it first, unparsed, so the client reads
  // the answer instead of a reset connection. The server's requestTimeout bounds a slow one.
  if (!req.complete && req.readable) {
    req.once('end', send);
    req.once('error', () => res.destroy());
    req.resume();
    return;
  }
  send();
};

/** A failure outside the operations: a body the parser refused, a malformed request, a store that is down (503), else a server error. */
function requestError(err: unknown): ApiError {
  if (isBodyParserError(err)) {
    return err.type === 'entity.too.large'
      ? tooLarge()
      : badRequest('(body)', err.type === 'entity.parse.failed' ? 'malformed JSON' : String(err.type), 'invalid request: malformed JSON body');
  }
  // Express and its parsers mark a client's malformed request (e.g. a bad %-escape in the path) with a 4xx.
  if (isClientHttpError(err)) return badRequest('(request)', err.message.slice(0, 200) || 'malformed request', 'invalid request');
  if (isStoreUnavailable(err)) return new ApiError(503, 'UNAVAILABLE', 'a store is unavailable; retry later', { reason: 'store unavailable', retryAfterSeconds: 1 });
  return new ApiError(500, 'INTERNAL_ERROR', 'server error', null);
}

/**
 * What body-parser (through raw-body) marks its refusals with. Only these: an upstream SDK's error also
 * carries a string `type` and a `status` (OpenAI's `NotFoundError` is `invalid_request_error`, 404), and
 * read as a parser's error it told the caller their JSON was malformed.
 */
const BODY_PARSER_TYPES = new Set([
  'entity.parse.failed',
  'entity.verify.failed',
  'entity.too.large',
  'encoding.unsupported',
  'charset.unsupported',
  'request.aborted',
  'request.size.invalid',
  'stream.encoding.set',
  'stream.not.readable',
  'parameters.too.many',
]);

function isBodyParserError(err: unknown): err is { type: string; status: number } {
  const type = (err as { type?: unknown } | null)?.type;
  return typeof type === 'string' && BODY_PARSER_TYPES.has(type) && typeof (err as { status?: unknown }).status === 'number';
}

/**
 * A 4xx that Express or its parsers raised about the request itself: http-errors marks its errors with
 * `expose`, and the router gives a path's bad %-escape (a `URIError`) status 400. An upstream client's
 * error with a 4xx status (a provider's 404 or 401) is a fault here, not the caller's.
 */
function isClientHttpError(err: unknown): err is Error & { status: number } {
  const status = (err as { status?: unknown; statusCode?: unknown } | null)?.status ?? (err as { statusCode?: unknown } | null)?.statusCode;
  const fromHttp = err instanceof URIError || typeof (err as { expose?: unknown } | null)?.expose === 'boolean';
  return err instanceof Error && fromHttp && typeof status === 'number' && status >= 400 && status < 500;
}
