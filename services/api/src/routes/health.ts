import { Router } from 'express';
import type { Runtime } from '@engram/runtime';

/** `/healthz`: the process is alive. `/readyz`: stores reachable, migrations applied, not draining. */
export function healthRoutes(runtime: Runtime): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res, next) => {
    runtime
      .ready()
      .then((ok) => {
        res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'unavailable' });
      })
      .catch(next);
  });
  return router;
}
