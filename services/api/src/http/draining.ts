/**
 * Keep-alive connections during shutdown: once the app is draining, every response carries
 * `Connection: close`, so a client's open connection is closed right after its in-flight request
 * instead of taking new ones until the deadline.
 */
import type { RequestHandler } from 'express';

export const closeWhenDraining: RequestHandler = (req, res, next) => {
  if (req.app.locals.draining === true) res.setHeader('Connection', 'close');
  next();
};
