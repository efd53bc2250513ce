import { Router } from 'express';
import { openApiDocument } from './v1/openapi.js';

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface Op {
  summary: string;
  description: string;
  parameters: { name: string; required: boolean; description: string }[];
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
  responses: Record<string, { description: string; content: { 'application/json': { schema: { $ref: string } } } }>;
}

const refName = (ref: string): string => ref.split('/').pop() ?? ref;

/** A readable page rendered from the same OpenAPI document: one section per path, schemas at the end. */
function docsPage(doc: ReturnType<typeof openApiDocument>): string {
  const info = doc.info as { title: string; description: string };
  const paths = doc.paths as Record<string, { post: Op }>;
  const schemas = (doc.components as { schemas: Record<string, unknown> }).schemas;
  const sections = Object.entries(paths).map(([path, { post }]) => {
    const header = post.parameters.map((p) => `<li><code>${escape(p.name)}</code> header${p.required ? ' (required)' : ''}: ${escape(p.description)}</li>`).join('');
    const body = post.requestBody ? `<a href="#${refName(post.requestBody.content['application/json'].schema.$ref)}">${refName(post.requestBody.content['application/json'].schema.$ref)}</a>` : 'none';
    const responses = Object.entries(post.responses)
      .map(([status, r]) => `<li><b>${status}</b> <a href="#${refName(r.content['application/json'].schema.$ref)}">${refName(r.content['application/json'].schema.$ref)}</a>: ${escape(r.description)}</li>`)
      .join('');
    return `<section><h2><code>POST ${escape(path)}</code> ${escape(post.summary)}</h2><p>${escape(post.description)}</p>
<ul><li><code>Authorization: Bearer &lt;API key&gt;</code></li>${header}</ul><p>Request body: ${body}</p><ul>${responses}</ul></section>`;
  });
  const schemaBlocks = Object.entries(schemas).map(([name, s]) => `<h3 id="${name}">${name}</h3><pre>${escape(JSON.stringify(s, null, 2))}</pre>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(info.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em}pre{background:#f6f8fa;padding:1em;overflow:auto}section{border-top:1px solid #ddd}</style></head>
<body><h1>${escape(info.title)}</h1><p>${escape(info.description)}</p><p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p>
${sections.join('\n')}<h2>Schemas</h2>${schemaBlocks.join('\n')}</body></html>`;
}

/** GET /v1/openapi.json (and /api/v1/openapi.json) and GET /docs: public, no API key. */
export function docsRoutes(): Router {
  const router = Router();
  const doc = openApiDocument();
  const page = docsPage(doc);
  router.get(['/v1/openapi.json', '/api/v1/openapi.json'], (_req, res) => {
    res.json(doc);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
  return router;
}
