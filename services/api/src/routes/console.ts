import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';

/** `services/api/console/`: the search console's HTML, CSS and ES modules, served as they are (no build step). */
export const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

/**
 * GET / (and its files): the search console. Public like `/docs`: the page holds no data; every call it
 * makes carries the API key or admin token the person pasted, which stay in their browser's localStorage.
 */
export function consoleRoutes(): Router {
  const router = Router();
  router.use(
    express.static(CONSOLE_DIR, {
      index: 'index.html',
      fallthrough: true,
      setHeaders: (res) => {
        res.setHeader('Cache-Control', 'no-cache');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'");
      },
    }),
  );
  return router;
}
