/**
 * Webhook deliveries, provider-agnostic. Signature first, then parse: the raw body (already capped by the
 * HTTP layer) is checked against each candidate connection's webhook secret (constant-time, one HMAC per
 * distinct secret, at most `maxWebhookSecrets` of them), and only a verified body is JSON-parsed. Secrets
 * are decrypted once per connection and kept (`webhookSecrets`) until the connection's secret changes or
 * the connection goes, so an unsigned delivery costs one query and the HMACs. A verified delivery is then validated for its
 * event type: a malformed one is recorded and answered 400 with the fields named (a 5xx would make the
 * provider retry it for days); a good one is staged and enqueued, and its delivery id recorded.
 *
 * Which connections: `?connection=<id>` names one; without it, every connection of the provider is a
 * candidate (GitHub: then only those whose `config.repo` is the payload's repository). A delivery goes to
 * each candidate whose secret verifies, so one Linear or Vercel webhook secret may serve several workspaces.
 * Past `maxWebhookSecrets` distinct secrets of one provider, the newer connections are reached only through
 * `?connection=<id>` (logged).
 */
import { createHash } from 'node:crypto';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { z } from 'zod';
import { findUnstorable, isUnstorable, SourceEvent, UNSTORABLE_MESSAGE } from '@engram/contracts';
import { createWebhookSecretCache, listWebhookCandidates, recordWebhookDelivery, stageEvents, type WebhookCandidate } from '@engram/stores';
import { checkGitHubWebhook, normalizeGitHubWebhook, verifyGitHubSignature } from '../github/webhooks.js';
import { checkLinearWebhook, normalizeLinearWebhook, verifyLinearSignature } from '../linear/index.js';
import { checkVercelWebhook, normalizeVercelWebhook, verifyVercelSignature } from '../vercel/index.js';
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

export interface WebhookIssue {
  field: string;
  message: string;
}

export type WebhookAnswer =
  | { status: 200; body: { ok: true; duplicate: boolean; events: number; connections: number } }
  | {
      status: 400 | 401;
      body: { ok: false; error: 'BAD_REQUEST' | 'VALIDATION_ERROR' | 'UNAUTHORIZED'; message: string; data: { fields: string[]; issues: WebhookIssue[] } | { field: string; reason: string } | null };
    };

const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

interface ProviderRules {
  /** Whether a signature of the provider's shape is present at all (none: refused before any query or HMAC). */
  signed(headers: Headers): boolean;
  verify(secret: string, raw: Buffer, headers: Headers): boolean;
  deliveryId(headers: Headers, payload: Record<string, unknown>): string | undefined;
  eventName(headers: Headers, payload: Record<string, unknown>): string | null;
  /** Validation of the payload for its event, before any connection sees it. */
  check(headers: Headers, payload: Record<string, unknown>): { ok: true; repository?: string | undefined; subject: unknown } | { ok: false; error: z.ZodError };
  normalize(payload: Record<string, unknown>, headers: Headers, connection: WebhookCandidate): SourceEvent[];
}

/**
 * Linear and Vercel payloads of a kind that is not indexed yield nothing (200); one of a kind that is
 * (a Linear issue, comment or project created or updated; a Vercel `deployment.*`) must parse as that kind.
 */
const LinearEnvelope = z.object({ type: z.string().optional(), action: z.string().optional(), data: z.record(z.string(), z.unknown()).optional(), webhookTimestamp: z.number() });
const VercelEnvelope = z.object({ id: z.string().optional(), type: z.string().optional(), payload: z.record(z.string(), z.unknown()).optional() });

const PROVIDERS: Record<WebhookProvider, ProviderRules> = {
  github: {
    signed: (h) => /^sha256=[0-9a-f]{64}$/i.test(header(h, 'x-hub-signature-256') ?? ''),
    verify: (secret, raw, h) => verifyGitHubSignature(secret, raw, header(h, 'x-hub-signature-256')),
    deliveryId: (h) => header(h, 'x-github-delivery'),
    eventName: (h) => header(h, 'x-github-event') ?? null,
    check: (h, p) => checkGitHubWebhook(header(h, 'x-github-event') ?? '', p),
    normalize: (payload, h, c) => normalizeGitHubWebhook(header(h, 'x-github-event') ?? '', payload, c.config.repo ?? ''),
  },
  linear: {
    signed: (h) => /^[0-9a-f]{64}$/i.test(header(h, 'linear-signature') ?? ''),
    verify: (secret, raw, h) => verifyLinearSignature(secret, raw, h['linear-signature']),
    deliveryId: (h, p) => header(h, 'linear-delivery') ?? (typeof p.webhookId === 'string' && p.createdAt ? `${p.webhookId}:${String(p.createdAt)}` : undefined),
    eventName: (h, p) => header(h, 'linear-event') ?? (typeof p.type === 'string' ? p.type : null),
    check: (_h, p) => {
      const parsed = LinearEnvelope.safeParse(p);
      if (!parsed.success) return { ok: false, error: parsed.error };
      const error = checkLinearWebhook(p);
      return error ? { ok: false, error } : { ok: true, subject: { data: p.data } };
    },
    normalize: (payload) => [normalizeLinearWebhook(payload)].filter((e): e is SourceEvent => e !== null),
  },
  vercel: {
    signed: (h) => /^[0-9a-f]{40}$/i.test(header(h, 'x-vercel-signature') ?? ''),
    verify: (secret, raw, h) => verifyVercelSignature(secret, raw, h['x-vercel-signature']),
    deliveryId: (_h, p) => (typeof p.id === 'string' ? p.id : undefined),
    eventName: (_h, p) => (typeof p.type === 'string' ? p.type : null),
    check: (_h, p) => {
      const parsed = VercelEnvelope.safeParse(p);
      if (!parsed.success) return { ok: false, error: parsed.error };
      const error = checkVercelWebhook(p);
      return error ? { ok: false, error } : { ok: true, subject: { payload: p.payload } };
    },
    normalize: (payload) => [normalizeVercelWebhook(payload)].filter((e): e is SourceEvent => e !== null),
  },
};

/** Linear signs `webhookTimestamp` into the body; a delivery older (or newer) than this is a replay. */
export const LINEAR_REPLAY_WINDOW_MS = 60_000;

function parseJson(raw: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const unauthorized = (message: string): WebhookAnswer => ({ status: 401, body: { ok: false, error: 'UNAUTHORIZED', message, data: null } });

function invalid(issues: WebhookIssue[]): WebhookAnswer {
  const fields = [...new Set(issues.map((i) => i.field))];
  return {
    status: 400,
    body: { ok: false, error: 'VALIDATION_ERROR', message: `invalid webhook payload: ${issues.slice(0, 5).map((i) => `${i.field}: ${i.message}`).join('; ')}`, data: { fields, issues: issues.slice(0, 20) } },
  };
}

const zodIssues = (error: z.ZodError): WebhookIssue[] => error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(body)', message: i.message }));
/** Header values and event names go into the database: anything unstorable is replaced by a hash. */
const storableOr = (value: string | null | undefined, fallback: () => string): string => (value && !isUnstorable(value) ? value.slice(0, 200) : fallback());

/** Distinct webhook secrets of one provider tried for a delivery without `?connection=` (HMACs per delivery). */
export const DEFAULT_MAX_WEBHOOK_SECRETS = 32;

const overCapWarnedAt = new Map<WebhookProvider, number>();

/** Secret caches of callers that pass none (tests, scripts), one per secret box. */
const defaultCaches = new WeakMap<SyncDeps['secretBox'], ReturnType<typeof createWebhookSecretCache>>();

function secretCache(deps: SyncDeps) {
  if (deps.webhookSecrets) return deps.webhookSecrets;
  let cache = defaultCaches.get(deps.secretBox);
  if (!cache) defaultCaches.set(deps.secretBox, (cache = createWebhookSecretCache(deps.secretBox)));
  return cache;
}

/**
 * The candidates whose secret verifies the raw body: one HMAC per distinct secret, for the first
 * `maxWebhookSecrets` distinct secrets (oldest connections first).
 */
async function verifiedCandidates(deps: SyncDeps, rules: ProviderRules, input: WebhookDeliveryInput): Promise<WebhookCandidate[]> {
  const connections = await listWebhookCandidates(deps.db, secretCache(deps), input.provider, input.connectionId);
  const max = deps.maxWebhookSecrets ?? DEFAULT_MAX_WEBHOOK_SECRETS;
  const bySecret = new Map<string, boolean>();
  let skipped = 0;
  const verified = connections.filter((c) => {
    let ok = bySecret.get(c.webhookSecret);
    if (ok === undefined) {
      if (bySecret.size >= max) {
        skipped++;
        return false;
      }
      ok = rules.verify(c.webhookSecret, input.rawBody, input.headers);
      bySecret.set(c.webhookSecret, ok);
    }
    return ok;
  });
  // Said at most once a minute per provider: an unsigned flood must not become a log flood.
  if (skipped > 0 && verified.length === 0 && Date.now() - (overCapWarnedAt.get(input.provider) ?? 0) > 60_000) {
    overCapWarnedAt.set(input.provider, Date.now());
    deps.logger?.warn({ provider: input.provider, skipped, maxWebhookSecrets: max }, 'webhook: more distinct secrets than are tried per delivery; name the connection with ?connection=<id>');
  }
  return verified;
}

/** Linear's own verifier checks the signed `webhookTimestamp` against its replay window. */
function linearFresh(secret: string, input: WebhookDeliveryInput): boolean {
  try {
    return new LinearWebhookClient(secret).verify(input.rawBody, header(input.headers, 'linear-signature') ?? '');
  } catch {
    return false;
  }
}

export async function receiveWebhook(deps: SyncDeps, input: WebhookDeliveryInput): Promise<WebhookAnswer> {
  const rules = PROVIDERS[input.provider];
  if (!rules.signed(input.headers)) return unauthorized('missing or invalid webhook signature');
  let verified = await verifiedCandidates(deps, rules, input);
  if (verified.length === 0) return unauthorized('missing or invalid webhook signature');

  const payload = parseJson(input.rawBody);
  if (!payload) return { status: 400, body: { ok: false, error: 'BAD_REQUEST', message: 'the delivery body is not a JSON object', data: { field: '(body)', reason: 'not a JSON object' } } };
  if (input.provider === 'linear') {
    verified = verified.filter((c) => linearFresh(c.webhookSecret, input));
    if (verified.length === 0) return unauthorized(`webhookTimestamp missing or more than ${LINEAR_REPLAY_WINDOW_MS / 1000} s from now (a replayed delivery)`);
  }
  const eventName = rules.eventName(input.headers, payload);
  const deliveryId = storableOr(rules.deliveryId(input.headers, payload), () => `sha256:${createHash('sha256').update(input.rawBody).digest('hex')}`);
  const record = (event: string | null) =>
    recordWebhookDelivery(deps.db, { provider: input.provider, deliveryId, connectionId: verified[0]!.id, event: event === null ? null : storableOr(event, () => 'unknown') });

  // Validate once, before any connection sees the payload: the event's own object, then its text.
  const checked = rules.check(input.headers, payload);
  let issues: WebhookIssue[] = [];
  if (!checked.ok) issues = zodIssues(checked.error);
  else {
    const at = findUnstorable(checked.subject);
    if (at) issues = [{ field: at.map(String).join('.') || '(body)', message: UNSTORABLE_MESSAGE }];
  }
  if (checked.ok && checked.repository !== undefined) {
    const repo = checked.repository.toLowerCase();
    verified = verified.filter((c) => input.provider !== 'github' || c.config.repo?.toLowerCase() === repo);
    if (verified.length === 0) return unauthorized('missing or invalid webhook signature');
  }

  const normalized: { connection: WebhookCandidate; events: SourceEvent[] }[] = [];
  if (issues.length === 0) {
    for (const connection of verified) {
      try {
        const events = rules.normalize(payload, input.headers, connection);
        for (const e of events) SourceEvent.parse(e);
        normalized.push({ connection, events });
      } catch (err) {
        issues = err instanceof z.ZodError ? zodIssues(err) : [{ field: '(body)', message: err instanceof Error ? err.message.slice(0, 300) : String(err) }];
        break;
      }
    }
  }
  if (issues.length > 0) {
    await record(`rejected:${eventName ?? 'unknown'}`);
    return invalid(issues);
  }

  let events = 0;
  for (const { connection, events: list } of normalized) {
    const staged = await stageEvents(deps.db, { workspaceId: connection.workspaceId, connectionId: connection.id, events: list });
    await deps.queue.enqueueMany('index.event', staged.ids.map((id) => ({ payload: { workspaceId: connection.workspaceId, eventId: id }, jobId: id })));
    events += list.length;
  }
  // Recorded after staging: a crash in between makes the provider's redelivery stage (idempotently) again.
  const fresh = await record(eventName);
  return { status: 200, body: { ok: true, duplicate: !fresh, events, connections: verified.length } };
}
