import { createRequire } from 'node:module';
import { Router } from 'express';
import { openApiDocument } from './v1/openapi.js';

/** Redoc's standalone bundle (React and all), served from node_modules: the page loads nothing from a CDN. */
const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
export const REDOC_SCRIPT_PATH = '/docs/redoc.standalone.js';

/**
 * Redoc renders the OpenAPI document in the browser: navigation, search, expandable schemas, request and
 * response samples. Redoc injects its styles and runs its search index in a blob: worker, hence the CSP.
 */
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Engram API reference</title></head>
<body><redoc spec-url="/v1/openapi.json" expand-responses="200,201,202" required-props-first="true"></redoc>
<noscript>The API reference needs JavaScript. The OpenAPI 3.1 document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<script src="${REDOC_SCRIPT_PATH}"></script></body></html>`;

const CSP = "default-src 'self'; script-src 'self'; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

/** GET /v1/openapi.json (and /api/v1/openapi.json) and GET /docs (the interactive reference): public, no API key. */
export function docsRoutes(): Router {
  const router = Router();
  const doc = openApiDocument();
  router.get(['/v1/openapi.json', '/api/v1/openapi.json'], (_req, res) => {
    res.json(doc);
  });
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.type('html').send(PAGE);
  });
  router.get(REDOC_SCRIPT_PATH, (_req, res, next) => {
    res.sendFile(REDOC_BUNDLE, { maxAge: '1d', headers: { 'X-Content-Type-Options': 'nosniff' } }, (err) => err && next(err));
  });
  return router;
}
