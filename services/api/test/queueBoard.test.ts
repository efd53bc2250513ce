/** Bull Board at /admin/queues: behind the admin token (Bearer, or Basic for a browser), BullMQ only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type Api } from './support/server.js';

const redis = process.env.REDIS_URL;

describe.skipIf(!redis)('Bull Board at /admin/queues (BullMQ; needs REDIS_URL)', () => {
  let api: Api;
  let admin: string;
  beforeAll(async () => {
    api = await startApi({ name: 'queue-board', env: { DATABASE_URL: 'pglite://memory', REDIS_URL: redis!, ENGRAM_SECRET_KEY: 'queue-board-secret-key-0123456789', ENGRAM_QUEUE_PREFIX: `engram-board-${process.pid}`, ENGRAM_ROLE: 'all' } });
    admin = api.runtime.admin.token!;
  });
  afterAll(async () => api?.close());

  const get = (path: string, authorization?: string) => fetch(`${api.base}${path}`, { headers: authorization ? { authorization } : {} });
  const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;

  it('asks a browser for the admin token, and refuses a wrong one', async () => {
    const none = await get('/admin/queues');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    const wrong = await get('/admin/queues', basic('nope'));
    expect(wrong.status).toBe(401);
    expect((await wrong.json()) as object).toMatchObject({ message: 'invalid admin token' });
  });

  it('shows every Engram queue to the admin', async () => {
    const page = await get('/admin/queues', basic(admin));
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const queues = await get('/admin/queues/api/queues', `Bearer ${admin}`);
    expect(queues.status).toBe(200);
    const body = (await queues.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name)).toContain('index.event');
  });
});
