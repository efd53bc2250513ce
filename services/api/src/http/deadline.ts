/**
 * A per-request deadline: a request whose handler has not answered within `deadlineMs` (a store that
 * accepts connections but does not answer, a queue waiting for Redis to come back, a provider that never
 * answers) gets 503 UNAVAILABLE with the documented error body and `Retry-After`, instead of holding the
 * client until its own timeout. Then the request's signal is aborted: the provider, embedding, reranker and
 * LLM calls it started are cancelled (their connections closed). Store queries already running finish; the
 * handler's late answer is dropped.
 */
import type { RequestHandler } from 'express';
import { abortRequest } from './context.js';
import { ApiError } from './errors.js';

export const deadlineExceeded = (deadlineMs: number): ApiError =>
  new ApiError(503, 'UNAVAILABLE', `the request did not finish within its ${deadlineMs} ms deadline; retry later`, { reason: 'deadline', deadlineMs, retryAfterSeconds: 1 });

export function requestDeadline(deadlineMs: number): RequestHandler {
  return (req, res, next) => {
    if (deadlineMs <= 0) return next();
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      res.locals.deadlinePassed = true;
      const error = deadlineExceeded(deadlineMs);
      next(error);
      abortRequest(req, error);
    }, deadlineMs);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
    res.once('finish', () => clearTimeout(timer));
    next();
  };
}
