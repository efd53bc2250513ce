/**
 * Bull Board at `/admin/queues` when the queue is BullMQ (REDIS_URL set): every Engram queue's jobs, with
 * retry and clean actions. Behind the admin token, given as `Authorization: Bearer <token>` or, so a
 * browser can open it, HTTP Basic with the token as the password (any user name). Bull Board is loaded and
 * its BullMQ handles opened on the first request (a process on the in-process queue never loads them);
 * `app.locals.closeQueueBoard()` closes them (a process that exits needs not).
 */
import type { Queue } from 'bullmq';
import express, { type Router } from 'express';
import { jobNames } from '@engram/queue';
import type { Runtime } from '@engram/runtime';

export const QUEUE_BOARD_PATH = '/admin/queues';

function adminTokenOf(header: string | undefined): string | null {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (bearer) return bearer[1]!;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!basic) return null;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  return decoded.includes(':') ? decoded.slice(decoded.indexOf(':') + 1) : null;
}

/** The board's router, or null when the queue is in-process (nothing for Bull Board to show). */
export function queueBoardRoutes(runtime: Runtime): { router: Router; close(): Promise<void> } | null {
  const { redisUrl, queuePrefix } = runtime.config;
  if (runtime.queue.kind !== 'bullmq' || !redisUrl) return null;
  let board: Promise<{ router: Router; queues: Queue[] }> | null = null;
  const load = async () => {
    const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }, { Queue }] = await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
      import('@bull-board/express'),
      import('bullmq'),
    ]);
    const u = new URL(redisUrl);
    const connection = {
      host: u.hostname,
      port: Number(u.port || 6379),
      ...(u.username ? { username: u.username } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(u.pathname && u.pathname !== '/' ? { db: Number(u.pathname.slice(1)) } : {}),
      ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
      maxRetriesPerRequest: null,
    };
    const queues = jobNames.map((name) => new Queue(name, { connection, prefix: queuePrefix }));
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(QUEUE_BOARD_PATH);
    createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter, options: { uiConfig: { boardTitle: 'Engram queues' } } });
    return { router: serverAdapter.getRouter() as Router, queues };
  };
  const router = express.Router();
  router.use(QUEUE_BOARD_PATH, (req, res, next) => {
    const token = adminTokenOf(req.header('authorization'));
    if (!token || !runtime.admin.verify(token)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="Engram admin (password: the admin token)", charset="UTF-8"');
      res.status(401).json({ error: 'UNAUTHORIZED', code: 'UNAUTHORIZED', message: token ? 'invalid admin token' : 'admin token required', status: 401, defined: true, data: null });
      return;
    }
    // A load that failed is tried again by the next request.
    board ??= load().catch((error: unknown) => {
      board = null;
      throw error;
    });
    board.then((opened) => opened.router(req, res, next), next);
  });
  return {
    router,
    async close() {
      const opened = await board?.catch(() => null);
      board = null;
      await Promise.all(opened?.queues.map((q) => q.close()) ?? []);
    },
  };
}
