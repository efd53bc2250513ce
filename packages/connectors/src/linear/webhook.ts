import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { SourceEvent } from '@engram/contracts';
import { LinearCommentNode, LinearIssueNode, LinearProjectNode } from './documents.js';
import { normalizeLinearComment, normalizeLinearIssue, normalizeLinearProject } from './normalize.js';

/**
 * Checks Linear's `linear-signature` header: hex HMAC-SHA256 of the raw request body with the webhook
 * signing secret. Pass the body bytes exactly as received (before JSON parsing).
 */
export function verifyLinearSignature(secret: string, rawBody: string | Buffer, header: string | string[] | null | undefined): boolean {
  const signature = Array.isArray(header) ? header[0] : header;
  if (!signature || !/^[0-9a-f]+$/i.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const LinearWebhookEnvelope = z.object({
  action: z.string(),
  type: z.string(),
  url: z.string().optional(),
  data: z.record(z.string(), z.unknown()),
});

/** The node schema a `create`/`update` delivery of `type` must satisfy, and its input; null for what is not indexed. */
function nodeOf(type: string, data: Record<string, unknown>, url: string | undefined): { schema: z.ZodType; input: unknown } | null {
  const withUrl = { ...data, url: data.url ?? url };
  if (type === 'Issue') return { schema: LinearIssueNode, input: { ...withUrl, labels: { nodes: data.labels ?? [] }, attachments: { nodes: [] } } };
  if (type === 'Comment') return { schema: LinearCommentNode, input: withUrl };
  if (type === 'Project') return { schema: LinearProjectNode, input: { ...withUrl, teams: undefined } };
  return null;
}

/**
 * Why a delivery of an indexed kind (`Issue`, `Comment`, `Project` created or updated) cannot be indexed,
 * with paths from the body's root (`data.title`); null when it can, or when it is of a kind not indexed.
 */
export function checkLinearWebhook(payload: unknown): z.ZodError | null {
  const envelope = LinearWebhookEnvelope.safeParse(payload);
  if (!envelope.success) return null;
  const { action, type, data, url } = envelope.data;
  if (action !== 'create' && action !== 'update') return null;
  const node = nodeOf(type, data, url);
  if (!node) return null;
  const parsed = node.schema.safeParse(node.input);
  if (parsed.success) return null;
  return new z.ZodError(parsed.error.issues.map((i) => ({ ...i, path: ['data', ...(i.path[0] === 'labels' && i.path[1] === 'nodes' ? ['labels', ...i.path.slice(2)] : i.path)] })));
}

/**
 * Normalises a Linear webhook delivery (`Issue`, `Comment`, `Project`; `create`/`update`) into the same
 * event a sync produces. Returns `null` for removals and other entity types. Webhook issue payloads carry
 * no attachments, so attachment refs arrive with the next sync.
 */
export function normalizeLinearWebhook(payload: unknown): SourceEvent | null {
  const envelope = LinearWebhookEnvelope.safeParse(payload);
  if (!envelope.success) return null;
  const { action, type, data, url } = envelope.data;
  if (action !== 'create' && action !== 'update') return null;
  if (!nodeOf(type, data, url)) return null;
  const withUrl = { ...data, url: data.url ?? url };
  if (type === 'Issue') {
    const issue = LinearIssueNode.safeParse({ ...withUrl, labels: { nodes: data.labels ?? [] }, attachments: { nodes: [] } });
    return issue.success ? normalizeLinearIssue(issue.data) : null;
  }
  if (type === 'Comment') {
    const comment = LinearCommentNode.safeParse(withUrl);
    return comment.success ? normalizeLinearComment(comment.data) : null;
  }
  if (type === 'Project') {
    const project = LinearProjectNode.safeParse({ ...withUrl, teams: undefined });
    return project.success ? normalizeLinearProject(project.data) : null;
  }
  return null;
}
