import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { SourceEvent } from '@engram/contracts';
import { normalizeVercelDeployment } from './normalize.js';

/**
 * Checks Vercel's `x-vercel-signature` header: hex HMAC-SHA1 of the raw request body with the webhook
 * secret (the integration's client secret or the account webhook secret).
 */
export function verifyVercelSignature(secret: string, rawBody: string | Buffer, header: string | string[] | null | undefined): boolean {
  const signature = Array.isArray(header) ? header[0] : header;
  if (!signature || !/^[0-9a-f]+$/i.test(signature)) return false;
  const expected = createHmac('sha1', secret).update(rawBody).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const STATE_BY_TYPE: Record<string, string> = {
  'deployment.created': 'BUILDING',
  'deployment.succeeded': 'READY',
  'deployment.ready': 'READY',
  'deployment.error': 'ERROR',
  'deployment.canceled': 'CANCELED',
};

const VercelWebhook = z.object({
  type: z.string(),
  createdAt: z.number(),
  payload: z.object({
    deployment: z.object({ id: z.string(), url: z.string(), name: z.string(), meta: z.record(z.string(), z.string()).nullish() }),
    target: z.string().nullish(),
    project: z.object({ id: z.string() }).optional(),
    links: z.object({ deployment: z.string().optional() }).optional(),
  }),
});

/** Why a `deployment.*` delivery cannot be indexed (paths from the body's root); null when it can, or for other types. */
export function checkVercelWebhook(payload: unknown): z.ZodError | null {
  const type = (payload as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !STATE_BY_TYPE[type]) return null;
  const parsed = VercelWebhook.safeParse(payload);
  return parsed.success ? null : parsed.error;
}

/**
 * Normalises a `deployment.created|succeeded|error|canceled` delivery into a deployment event whose
 * state is the one the event announces, and whose `updatedAt` is the delivery time so it supersedes the
 * event a sync produced earlier. `null` for other event types or malformed payloads.
 */
export function normalizeVercelWebhook(payload: unknown): SourceEvent | null {
  const parsed = VercelWebhook.safeParse(payload);
  if (!parsed.success) return null;
  const state = STATE_BY_TYPE[parsed.data.type];
  if (!state) return null;
  const { deployment, target, project, links } = parsed.data.payload;
  return normalizeVercelDeployment({
    uid: deployment.id,
    name: deployment.name,
    url: deployment.url,
    created: parsed.data.createdAt,
    state,
    target: target ?? null,
    projectId: project?.id,
    inspectorUrl: links?.deployment,
    meta: deployment.meta ?? {},
  });
}
