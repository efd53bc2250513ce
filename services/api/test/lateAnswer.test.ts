/**
 * A handler that answers after its request's deadline (work that cannot be cancelled, such as a search
 * waiting for the indexes to load): the client has its 503, and its keep-alive connection still serves
 * the next request.
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { route } from '../src/http/context.js';
import { requestDeadline } from '../src/http/deadline.js';
import { errorMiddleware } from '../src/http/errors.js';

const DEADLINE_MS = 100;

describe('an answer after the deadline', () => {
  let server: Server;
  let port: number;
  let calls = 0;
  let lateAnswered!: Promise<void>;
  let markLate: () => void = () => undefined;

  beforeAll(async () => {
    const app = express();
    const router = express.Router();
    router.post(
      '/search',
      route(async (_req, res) => {
        // The first call outlives the deadline and answers anyway; later ones answer at once.
        if (++calls === 1) {
          await new Promise((resolve) => setTimeout(resolve, 3 * DEADLINE_MS));
          try {
            res.json({ late: true });
          } finally {
            setTimeout(markLate, 50);
          }
          return;
        }
        res.json({ call: calls });
      }),
    );
    app.use('/v1', requestDeadline(DEADLINE_MS), express.json(), router);
    app.use(errorMiddleware);
    lateAnswered = new Promise((resolve) => (markLate = resolve));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('leaves the keep-alive connection serving the next request', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = () =>
      new Promise<{ status: number; body: string; socket: object }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/v1/search', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: req.socket! }));
        });
        req.on('error', reject);
        req.end('{}');
      });
    const first = await post();
    expect(first.status).toBe(503);
    expect(JSON.parse(first.body)).toMatchObject({ code: 'UNAVAILABLE', data: { reason: 'deadline' } });
    await lateAnswered;
    const second = await post();
    expect(second.status).toBe(200);
    expect(JSON.parse(second.body)).toEqual({ call: 2 });
    expect(second.socket).toBe(first.socket);
    agent.destroy();
  });
});
