/**
 * A provider's failure is the server's fault, never the caller's: an upstream SDK error carries a string
 * `type` and a 4xx `status` (OpenAI's `NotFoundError` is `invalid_request_error`, 404), and read as a body
 * parser's refusal it told the caller their JSON was malformed. The caller's own malformed requests still
 * get their 400s.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { NotFoundError as OpenAINotFound } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../src/http/body.js';
import { errorMiddleware, parseBody } from '../src/http/errors.js';
import { z } from 'zod';

describe('errors from upstream providers', () => {
  let base = '';
  let close: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const app = express();
    app.use(jsonBody(1_000_000));
    app.post('/echo', (req, res) => res.json(parseBody(z.object({ query: z.string() }), req.body)));
    app.post('/upstream', () => {
      throw new OpenAINotFound(404, { message: 'no route for /embeddings', type: 'invalid_request_error' }, '404 no route for /embeddings', new Headers());
    });
    app.get('/items/:id', (req, res) => res.json({ id: req.params.id }));
    app.use(errorMiddleware);
    const server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  const post = (path: string, body: string) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { authorization: 'Bearer egk_test', 'content-type': 'application/json' }, body }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code: string; data: unknown } }));

  it('answers 500 INTERNAL_ERROR for a provider 404, not a malformed-body 400', async () => {
    const res = await post('/upstream', '{"query":"x"}');
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('INTERNAL_ERROR');
  });

  it('still answers 400 for a malformed body and for a bad %-escape in the path', async () => {
    const malformed = await post('/echo', '{"query":');
    expect([malformed.status, malformed.body.code, malformed.body.data]).toEqual([400, 'BAD_REQUEST', { field: '(body)', reason: 'malformed JSON' }]);
    expect((await post('/echo', '{"query":"fine"}')).status).toBe(200);
    const escape = await fetch(`${base}/items/%E0%A4%A`);
    expect(escape.status).toBe(400);
  });
});
