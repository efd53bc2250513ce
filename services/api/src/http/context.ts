import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { getWorkspace, resolveApiKey, type Db } from '@engram/stores';
import type { Logger } from '@engram/runtime';
import { badRequest, forbidden, unauthorized, type ApiError } from './errors.js';
import { limitsOf } from './limits.js';

export interface AuthedRequest extends Request {
  id: string;
  log: Logger;
  workspaceId: string;
  keyId: string;
  /**
   * Aborted when the client closes the connection before its answer, or at the request's deadline
   * (`requestDeadline`): the query service hands it to every provider, embedding, reranker and LLM call.
   */
  signal: AbortSignal;
}

const controllers = new WeakMap<Request, AbortController>();

/** Aborts the request's work (its `signal`) with `reason`; a no-op once aborted. */
export function abortRequest(req: Request, reason: unknown): void {
  controllers.get(req)?.abort(reason);
}

/** Why a request's work was abandoned: the client went away. */
export class ClientClosedError extends Error {
  override name = 'ClientClosedError';
  constructor() {
    super('the client closed the connection before the answer');
  }
}

/**
 * Request id (honours a sane incoming `X-Request-Id`), a child logger, the request's abort signal, and one
 * log line per request. The line's `workspaceId` comes from the child logger `requireApiKey` binds, once.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header('x-request-id');
    const id = incoming && /^[A-Za-z0-9._-]{8,128}$/.test(incoming) ? incoming : `req_${randomUUID()}`;
    const r = req as AuthedRequest;
    r.id = id;
    r.log = logger.child({ requestId: id });
    res.setHeader('X-Request-Id', id);
    const controller = new AbortController();
    controllers.set(req, controller);
    r.signal = controller.signal;
    // 'close' before 'finish': the connection went away with the answer unsent.
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new ClientClosedError());
    });
    const started = performance.now();
    res.on('finish', () => {
      const line = { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(performance.now() - started) };
      if (res.statusCode >= 500) r.log.error(line, 'request');
      else r.log.info(line, 'request');
    });
    next();
  };
}

/**
 * Live keys and existing workspaces, remembered on the embedded default until this process writes
 * `api_keys` or `workspaces` again (it is the only writer there, so a revocation still takes effect on
 * the key's next request): two statements fewer a request, each of which could wait behind an import's.
 * On a Postgres server, where other processes revoke keys, every request reads them.
 */
function keyCache(db: Db) {
  const tables = ['api_keys', 'workspaces'];
  /** `read`, with what it found (never a miss: anyone can send new keys) remembered until `tables` are written. */
  const remembered = <T>(read: (k: string) => Promise<T | null>) => {
    let version = -1;
    const known = new Map<string, T>();
    return async (k: string): Promise<T | null> => {
      if (db.kind !== 'pglite') return read(k);
      const now = db.writeCount(tables);
      if (now !== version) {
        known.clear();
        version = now;
      }
      const hit = known.get(k);
      if (hit !== undefined) return hit;
      const found = await read(k);
      if (found !== null && db.writeCount(tables) === now && known.size < 10_000) known.set(k, found);
      return found;
    };
  };
  return {
    resolve: remembered((key) => resolveApiKey(db, key)),
    workspace: remembered((id) => getWorkspace(db, id)),
  };
}
const keyCaches = new WeakMap<Db, ReturnType<typeof keyCache>>();
const keysOf = (db: Db) => keyCaches.get(db) ?? keyCaches.set(db, keyCache(db)).get(db)!;

/**
 * Bearer API key -> workspace. `X-Workspace-ID` names the workspace; a key may use only its own, and
 * a workspace that does not exist is 403 too (no probing for ids). Where the header is optional
 * (`headerRequired: false`), the key's own workspace applies. A request without a valid key counts
 * against its client IP's limit; one with a valid key against the key's rate and concurrency limits.
 */
export function requireApiKey(db: Db, options: { headerRequired: boolean }): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const limits = limitsOf(req.app.locals);
      const reject = async (error: ApiError): Promise<never> => {
        await limits?.admitIp(req.ip ?? 'unknown');
        throw error;
      };
      const header = req.header('authorization') ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) return reject(unauthorized(header ? 'invalid authentication: expected "Authorization: Bearer <API key>"' : 'authentication required'));
      const key = await keysOf(db).resolve(match[1]!);
      if (!key) return reject(unauthorized('invalid API key'));
      if (limits) {
        const release = await limits.admitKey(key.keyId);
        res.once('close', release);
      }
      const requested = req.header('x-workspace-id')?.trim();
      if (options.headerRequired && !requested) throw badRequest('X-Workspace-ID', 'required header missing', 'invalid request: the X-Workspace-ID header is required for this operation');
      const workspaceId = requested || key.workspaceId;
      if (workspaceId !== key.workspaceId) throw forbidden();
      if (!(await keysOf(db).workspace(workspaceId))) throw forbidden();
      const r = req as AuthedRequest;
      r.workspaceId = workspaceId;
      r.keyId = key.keyId;
      r.log = r.log.child({ workspaceId });
    })().then(() => next(), next);
  };
}

/**
 * Wraps an async route so a rejection reaches the error middleware. A handler that answers after its
 * deadline's 503 went out (work that cannot be cancelled, such as waiting for the indexes to load) fails
 * to set headers; that failure is dropped here. Passed on, it would re-enter Express's router past its
 * last layer, and Express's final handler destroys the socket of an answered request: the client's next
 * request on that keep-alive connection failed.
 */
export const route =
  (fn: (req: AuthedRequest, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) => {
    fn(req as AuthedRequest, res).catch((err: unknown) => {
      if (res.headersSent && res.locals.deadlinePassed === true) return;
      next(err);
    });
  };
