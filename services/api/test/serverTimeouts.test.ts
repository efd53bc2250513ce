/**
 * Issue 18, "no server request or header timeouts": a client that sends its headers and half a body, or half
 * its headers, gets 408 and its connection closed at HTTP_REQUEST_TIMEOUT_MS / HTTP_HEADERS_TIMEOUT_MS, on the
 * server main.ts runs (`listen` in src/http/server.ts, which startFullServer uses too).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFullServer, type FullServer } from './support/fullServer.js';

describe('server timeouts (HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS)', () => {
  let s: FullServer;
  beforeAll(async () => {
    s = await startFullServer({ HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  /** Opens a raw connection, writes `sent` and never finishes; resolves with what the server wrote once it closes the connection. */
  const trickle = (sent: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(s.base);
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(sent));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
    });

  // Node's default check runs every 30 s: without the server's own interval a trickling client is held up
  // to 30 s past the timeout, past this test's own limit.
  it('headers then half a body: 408 and the connection closed', async () => {
    const body = JSON.stringify({ query: 'a body that never ends' });
    const head = `POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const received = await trickle(head + body.slice(0, body.length / 2));
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect((await fetch(`${s.base}/healthz`)).status).toBe(200);
  }, 10_000);

  it('half the headers: 408 and the connection closed', async () => {
    const received = await trickle('POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl');
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  }, 10_000);
});
