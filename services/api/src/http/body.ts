/**
 * Request bodies. Authentication answers before any body is judged: a body that is malformed or over the
 * limit is marked here and raised by `parseBody` after the route has authenticated, so a 20 MB body
 * without a key is 401, not 413. A request with no bearer credential at all is not read.
 */
import express, { type RequestHandler } from 'express';
import { MALFORMED_BODY, TOO_LARGE_BODY } from './errors.js';

const BEARER = /^Bearer\s+\S+\s*$/i;

export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true });
  return (req, res, next) => {
    if (!BEARER.test(req.header('authorization') ?? '')) {
      next();
      return;
    }
    parse(req, res, (err?: unknown) => {
      const e = err as { status?: number; type?: string } | undefined;
      if (e?.type === 'entity.too.large') {
        req.body = TOO_LARGE_BODY;
        next();
      } else if (e && e.status === 400) {
        req.body = MALFORMED_BODY;
        next();
      } else next(err);
    });
  };
}

/** Webhook bodies: raw bytes (signatures are over them), capped well below the api's other limits. */
export function rawBody(limitBytes: number): RequestHandler {
  return express.raw({ type: () => true, limit: limitBytes });
}
