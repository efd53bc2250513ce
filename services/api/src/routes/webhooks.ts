/**
 * `POST /webhooks/github|linear|vercel`, mounted with a raw body parser (signatures are over bytes).
 * GitHub deliveries find their connection by the payload's repository; Linear and Vercel ones by
 * `?connection=<id>` (the `webhookPath` a created connection reports) or, without it, by whichever
 * connection's webhook secret verifies the signature. Bad or missing signature: 401, nothing stored.
 * A signed delivery that is malformed for its event: 400 VALIDATION_ERROR naming the fields, recorded.
 * Errors use the documented error body.
 */
import { Router } from 'express';
import { receiveWebhook, type WebhookProvider } from '@engram/connectors';
import type { Runtime } from '@engram/runtime';
import { route } from '../http/context.js';
import { ApiError } from '../http/errors.js';

const PROVIDERS: readonly WebhookProvider[] = ['github', 'linear', 'vercel'];

export function webhookRoutes(runtime: Runtime): Router {
  const router = Router();
  const deps = { db: runtime.db, queue: runtime.queue, secretBox: runtime.secretBox, logger: runtime.logger };
  for (const provider of PROVIDERS) {
    router.post(
      `/${provider}`,
      route(async (req, res) => {
        const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const connectionId = typeof req.query.connection === 'string' ? req.query.connection : undefined;
        const answer = await receiveWebhook(deps, { provider, rawBody, headers: req.headers, ...(connectionId ? { connectionId } : {}) });
        if (answer.status !== 200) throw new ApiError(answer.status, answer.body.error, answer.body.message, answer.body.data);
        res.status(answer.status).json(answer.body);
      }),
    );
  }
  return router;
}
