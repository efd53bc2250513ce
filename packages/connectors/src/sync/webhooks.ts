/**
 * Webhook deliveries, provider-agnostic: find the connections a delivery may belong to, keep those whose
 * webhook secret verifies the signature over the raw body (constant-time), stage and enqueue the events,
 * then record the delivery id. Nothing is read from the body before a signature verifies.
 *
 * Which connections: `?connection=<id>` names one; without it, every connection of the provider is a
 * candidate (GitHub: those whose `config.repo` is the payload's repository). A delivery goes to each
 * candidate whose secret verifies, so one Linear or Vercel webhook secret may serve several workspaces.
 */
import { createHash } from 'node:crypto';
import type { SourceEvent } from '@engram/contracts';
import { getConnectionWithSecrets, listConnections, recordWebhookDelivery, stageEvents, type ConnectionWithSecrets } from '@engram/stores';
import { normalizeGitHubWebhook, verifyGitHubSignature } from '../github/index.js';
import { normalizeLinearWebhook, verifyLinearSignature } from '../linear/index.js';
import { normalizeVercelWebhook, verifyVercelSignature } from '../vercel/index.js';
import type { SyncDeps } from './types.js';

export type WebhookProvider = 'github' | 'linear' | 'vercel';
type Headers = Record<string, string | string[] | undefined>;

export interface WebhookDeliveryInput {
  provider: WebhookProvider;
  rawBody: Buffer;
  /** Lower-case header names, as Node gives them. */
  headers: Headers;
  connectionId?: string;
}

export interface WebhookAnswer {
  status: 200 | 400 | 401;
  body: { ok: boolean; duplicate?: boolean; events?: number; connections?: number; error?: string; message?: string };
}

const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

interface ProviderRules {
  verify(secret: string, raw: Buffer, headers: Headers): boolean;
  deliveryId(headers: Headers, payload: Record<string, unknown>): string | undefined;
  eventName(headers: Headers, payload: Record<string, unknown>): string | null;
  normalize(payload: unknown, headers: Headers, connection: ConnectionWithSecrets): SourceEvent[];
}

const PROVIDERS: Record<WebhookProvider, ProviderRules> = {
  github: {
    verify: (secret, raw, h) => verifyGitHubSignature(secret, raw, header(h, 'x-hub-signature-256')),
    deliveryId: (h) => header(h, 'x-github-delivery'),
    eventName: (h) => header(h, 'x-github-event') ?? null,
    normalize: (payload, h, c) => normalizeGitHubWebhook(header(h, 'x-github-event') ?? '', payload, c.config.repo ?? ''),
  },
  linear: {
    verify: (secret, raw, h) => verifyLinearSignature(secret, raw, h['linear-signature']),
    deliveryId: (h, p) => header(h, 'linear-delivery') ?? (typeof p.webhookId === 'string' && p.createdAt ? `${p.webhookId}:${String(p.createdAt)}` : undefined),
    eventName: (h, p) => header(h, 'linear-event') ?? (typeof p.type === 'string' ? p.type : null),
    normalize: (payload) => [normalizeLinearWebhook(payload)].filter((e): e is SourceEvent => e !== null),
  },
  vercel: {
    verify: (secret, raw, h) => verifyVercelSignature(secret, raw, h['x-vercel-signature']),
    deliveryId: (_h, p) => (typeof p.id === 'string' ? p.id : undefined),
    eventName: (_h, p) => (typeof p.type === 'string' ? p.type : null),
    normalize: (payload) => [normalizeVercelWebhook(payload)].filter((e): e is SourceEvent => e !== null),
  },
};

function parseJson(raw: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function candidates(deps: SyncDeps, input: WebhookDeliveryInput, payload: Record<string, unknown> | null): Promise<ConnectionWithSecrets[]> {
  const ids = input.connectionId
    ? [input.connectionId]
    : (await listConnections(deps.db)).filter((c) => c.provider === input.provider).map((c) => c.id);
  const repo = (payload?.repository as { full_name?: unknown } | undefined)?.full_name;
  const out: ConnectionWithSecrets[] = [];
  for (const id of ids) {
    const c = await getConnectionWithSecrets(deps.db, deps.secretBox, id);
    if (!c || c.provider !== input.provider || !c.webhookSecret) continue;
    if (input.provider === 'github' && typeof repo === 'string' && c.config.repo?.toLowerCase() !== repo.toLowerCase()) continue;
    out.push(c);
  }
  return out;
}

export async function receiveWebhook(deps: SyncDeps, input: WebhookDeliveryInput): Promise<WebhookAnswer> {
  const rules = PROVIDERS[input.provider];
  const payload = parseJson(input.rawBody);
  const verified = (await candidates(deps, input, payload)).filter((c) => rules.verify(c.webhookSecret!, input.rawBody, input.headers));
  if (verified.length === 0) return { status: 401, body: { ok: false, error: 'UNAUTHORIZED', message: 'missing or invalid webhook signature' } };
  if (!payload) return { status: 400, body: { ok: false, error: 'BAD_REQUEST', message: 'the delivery body is not a JSON object' } };

  let events = 0;
  for (const connection of verified) {
    const normalized = rules.normalize(payload, input.headers, connection);
    const staged = await stageEvents(deps.db, { workspaceId: connection.workspaceId, connectionId: connection.id, events: normalized });
    await deps.queue.enqueueMany('index.event', staged.ids.map((id) => ({ payload: { workspaceId: connection.workspaceId, eventId: id }, jobId: id })));
    events += normalized.length;
  }
  // Recorded after staging: a crash in between makes the provider's redelivery stage (idempotently) again.
  const deliveryId = rules.deliveryId(input.headers, payload) ?? `sha256:${createHash('sha256').update(input.rawBody).digest('hex')}`;
  const fresh = await recordWebhookDelivery(deps.db, { provider: input.provider, deliveryId, connectionId: verified[0]!.id, event: rules.eventName(input.headers, payload) });
  return { status: 200, body: { ok: true, duplicate: !fresh, events, connections: verified.length } };
}
