/** GitHub webhook deliveries: signature check, per-event payload schemas, and mapping to source events. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { SourceEvent } from '@engram/contracts';
import { normalizeGitHubObject } from './normalize.js';
import { CommentShape, DiscussionShape, IssueShape, PullShape } from './shapes.js';

/**
 * Checks `x-hub-signature-256` (`sha256=<64 hex>`, nothing before or after) against the raw request
 * body, in constant time. `Buffer.from(hex, 'hex')` stops at the first non-hex character, so the format
 * is checked first: `sha256=<valid>,<junk>` is a bad signature.
 */
export function verifyGitHubSignature(secret: string, rawBody: Buffer, header: string | undefined | null): boolean {
  if (!secret || !header || !/^sha256=[0-9a-f]{64}$/i.test(header)) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const Repository = z.object({ full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'expected "owner/name"') }).passthrough();
const PushPerson = z.object({ name: z.string().nullish(), email: z.string().nullish(), username: z.string().nullish() }).nullish();
const PushCommit = z.object({
  id: z.string().regex(/^[0-9a-f]{40}$/i, 'expected a 40-hex commit sha'),
  message: z.string(),
  timestamp: z.string(),
  url: z.string(),
  author: PushPerson,
  committer: PushPerson,
  added: z.array(z.string()).nullish(),
  removed: z.array(z.string()).nullish(),
  modified: z.array(z.string()).nullish(),
});
type PushCommit = z.infer<typeof PushCommit>;

/** GitHub sends at most 2,048 commits in one push payload. */
const MAX_PUSH_COMMITS = 2_048;

/**
 * What each handled event must carry, and the key of the object it maps (validated against the same
 * shapes a sync reads). Other events (ping, ...) are accepted and yield nothing; a `repository`, when
 * present, must name one.
 */
const EVENTS = {
  pull_request: { key: 'pull_request', schema: z.object({ pull_request: PullShape }) },
  issues: { key: 'issue', schema: z.object({ issue: IssueShape }) },
  issue_comment: { key: 'comment', schema: z.object({ comment: CommentShape }) },
  discussion: { key: 'discussion', schema: z.object({ discussion: DiscussionShape }) },
  push: {
    key: 'commits',
    schema: z.object({ ref: z.string().optional(), deleted: z.boolean().optional(), commits: z.array(PushCommit).max(MAX_PUSH_COMMITS) }),
  },
} as const;
const Envelope = z.object({ repository: Repository.optional() });

export type GitHubWebhookCheck =
  | { ok: true; repository: string | undefined; subject: unknown }
  | { ok: false; error: z.ZodError };

/**
 * Validates a parsed delivery for its event: the envelope's repository and the event's own object.
 * `subject` holds the part that becomes events, under its key (checked again for text Postgres cannot store).
 */
export function checkGitHubWebhook(eventName: string, payload: Record<string, unknown>): GitHubWebhookCheck {
  const envelope = Envelope.safeParse(payload);
  if (!envelope.success) return { ok: false, error: envelope.error };
  const rule = EVENTS[eventName as keyof typeof EVENTS];
  if (!rule) return { ok: true, repository: envelope.data.repository?.full_name, subject: undefined };
  const parsed = rule.schema.safeParse(payload);
  if (!parsed.success) return { ok: false, error: parsed.error };
  return { ok: true, repository: envelope.data.repository?.full_name, subject: { [rule.key]: payload[rule.key] } };
}

/** A push payload commit -> the REST commit shape (one date only: the push gives the author timestamp). */
function pushCommitToRest(c: PushCommit): Record<string, unknown> {
  const files = [...new Set([...(c.added ?? []), ...(c.removed ?? []), ...(c.modified ?? [])])];
  return {
    sha: c.id,
    html_url: c.url,
    commit: {
      message: c.message,
      author: { name: c.author?.name, email: c.author?.email, date: c.timestamp },
      committer: { name: c.committer?.name, email: c.committer?.email, date: c.timestamp },
    },
    author: c.author?.username ? { login: c.author.username } : null,
    committer: c.committer?.username ? { login: c.committer.username } : null,
    files: files.map((filename) => ({ filename })),
  };
}

/**
 * Maps a delivery to source events: `pull_request`, `issues`, `issue_comment`, `push` (its commits),
 * `discussion`. Other events (ping, ...) yield none. The payload's repository wins over `repo`.
 * Throws (a zod error naming the field) on a payload that `checkGitHubWebhook` would refuse.
 */
export function normalizeGitHubWebhook(eventName: string, payload: unknown, repo: string): SourceEvent[] {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return [];
  const p = payload as Record<string, unknown>;
  const fullName = Envelope.parse(p).repository?.full_name ?? repo;
  switch (eventName) {
    case 'pull_request':
    case 'issues':
    case 'issue_comment':
    case 'discussion': {
      const rule = EVENTS[eventName];
      rule.schema.parse(p);
      return [normalizeGitHubObject(p[rule.key], fullName)];
    }
    case 'push': {
      const push = EVENTS.push.schema.parse(p);
      if (push.deleted === true) return [];
      return push.commits.map((c) => {
        const ev = normalizeGitHubObject(pushCommitToRest(c), fullName);
        return push.ref ? { ...ev, metadata: { ...ev.metadata, pushed_ref: push.ref } } : ev;
      });
    }
    default:
      return [];
  }
}
