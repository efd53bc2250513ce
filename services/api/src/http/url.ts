/**
 * Path and query strings reach the database as ids and filters: one that is not valid percent-encoded
 * UTF-8, or that decodes to a NUL or a lone surrogate, is a 400 before any route sees it.
 */
import type { RequestHandler } from 'express';
import { findUnstorable, isUnstorable } from '@engram/contracts';
import { badRequest } from './errors.js';

export const rejectUnstorableUrl: RequestHandler = (req, _res, next) => {
  let path: string;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    next(badRequest('(path)', 'not valid percent-encoded UTF-8', 'invalid request: malformed URL'));
    return;
  }
  if (isUnstorable(path)) {
    next(badRequest('(path)', 'contains a NUL character or a lone surrogate', 'invalid request: malformed URL'));
    return;
  }
  const at = findUnstorable(req.query, 8);
  if (at) {
    next(badRequest(`query.${at.map(String).join('.')}`, 'contains a NUL character or a lone surrogate', 'invalid request: malformed query string'));
    return;
  }
  next();
};
