/**
 * A per-request deadline: a request whose handler has not answered within `deadlineMs` (a store that
 * accepts connections but does not answer, a queue waiting for Redis to come back) gets 503 UNAVAILABLE
 * with the documented error body and `Retry-After`, instead of holding the client until its own timeout.
 * The handler's work is not cancelled; its late answer is dropped.
 */
import type { RequestHandler } from 'express';
import { ApiError } from './errors.js';

export const deadlineExceeded = (deadlineMs: number): ApiError =>
  new ApiError(503, 'UNAVAILABLE', `the request did not finish within its ${deadlineMs} ms deadline; retry later`, { reason: 'deadline', deadlineMs, retryAfterSeconds: 1 });

export function requestDeadline(deadlineMs: number): RequestHandler {
  return (_req, res, next) => {
    if (deadlineMs <= 0) return next();
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      res.locals.deadlinePassed = true;
      next(deadlineExceeded(deadlineMs));
    }, deadlineMs);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
    res.once('finish', () => clearTimeout(timer));
    next();
  };
}
