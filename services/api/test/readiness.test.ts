import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAppLimits, createApp } from '../src/app.js';
import { startFullServer, type FullServer } from './support/fullServer.js';

describe('/readyz and the search indexes', () => {
  let full: FullServer;
  beforeAll(async () => {
    full = await startFullServer();
  });
  afterAll(async () => {
    await full?.close();
  });

  it('answers ready once the in-memory indexes have loaded', async () => {
    let res = await fetch(`${full.base}/readyz`);
    for (let i = 0; i < 100 && res.status !== 200; i++) {
      expect(await res.json()).toEqual({ status: 'loading' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      res = await fetch(`${full.base}/readyz`);
    }
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });

  it('answers 503 loading while they load, and /healthz still answers', async () => {
    const app = createApp(full.runtime, { searchReady: () => false });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'loading' });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await closeAppLimits(app);
    }
  });
});
