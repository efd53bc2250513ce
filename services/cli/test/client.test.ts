import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminClient } from '../src/client.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server that resets the first `drops` requests mid-flight, then answers `{ ok: true }`. */
async function flakyServer(drops: number): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  server = createServer((req, res) => {
    requests++;
    if (requests <= drops) return req.socket.destroy();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, method: req.method }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, requests: () => requests };
}

describe('the admin client', () => {
  it('repeats a GET whose connection was reset, so a poll outlives a dropped connection', async () => {
    const flaky = await flakyServer(2);
    const client = createAdminClient({ url: flaky.url, token: 't', retryDelaysMs: [10, 10, 10] });
    expect(await client.get('/admin/imports/x')).toEqual({ ok: true, method: 'GET' });
    expect(flaky.requests()).toBe(3);
  });

  it('gives up after its retries with UNREACHABLE, and never repeats a POST', async () => {
    const always = await flakyServer(100);
    const client = createAdminClient({ url: always.url, token: 't', retryDelaysMs: [10, 10] });
    await expect(client.get('/admin/status')).rejects.toMatchObject({ code: 'UNREACHABLE' });
    expect(always.requests()).toBe(3);
    await expect(client.post('/admin/imports', { content: '' })).rejects.toMatchObject({ code: 'UNREACHABLE' });
    expect(always.requests()).toBe(4);
  });
});
