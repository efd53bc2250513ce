import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Db } from '@engram/stores';
import { requireApiKey } from '../../http/context.js';

/**
 * Authentication for one operation, with its time recorded (`latency.auth`). Attached per route, never
 * per router: GET /v1/openapi.json shares the prefix and is public.
 */
export function authenticate(db: Db, options: { headerRequired: boolean }): RequestHandler[] {
  const check = requireApiKey(db, options);
  return [
    (_req: Request, res: Response, next: NextFunction) => {
      res.locals.authStarted = performance.now();
      next();
    },
    check,
    (_req: Request, res: Response, next: NextFunction) => {
      res.locals.authMs = performance.now() - (res.locals.authStarted as number);
      next();
    },
  ];
}

export const ms = (since: number): number => Math.round((performance.now() - since) * 100) / 100;
