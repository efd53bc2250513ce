import { Router } from 'express';
import type { Runtime } from '@engram/runtime';

/**
 * `/healthz`: the process is alive. `/readyz`: stores reachable, migrations applied, not draining, and
 * the search's in-memory indexes loaded (`searchReady`; 503 `loading` until then: at 100k items a restart
 * takes ~30 s to load them, and searches meanwhile wait for the load).
 */
export function healthRoutes(runtime: Runtime, searchReady: () => boolean = () => true): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res, next) => {
    runtime
      .ready()
      .then((ok) => {
        const status = !ok ? 'unavailable' : searchReady() ? 'ready' : 'loading';
        res.status(status === 'ready' ? 200 : 503).json({ status });
      })
      .catch(next);
  });
  return router;
}
