/** GitHub webhook deliveries: signature check and mapping to source events. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SourceEvent } from '@engram/contracts';
import { normalizeGitHubObject } from './normalize.js';

/** Checks `x-hub-signature-256` (`sha256=<hex>`) against the raw request body, in constant time. */
export function verifyGitHubSignature(secret: string, rawBody: Buffer, header: string | undefined | null): boolean {
  if (!secret || !header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

type Payload = Record<string, unknown>;

interface PushCommit {
  id: string;
  message: string;
  timestamp: string;
  url: string;
  author?: { name?: string; email?: string; username?: string };
  committer?: { name?: string; email?: string; username?: string };
  added?: string[];
  removed?: string[];
  modified?: string[];
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
 */
export function normalizeGitHubWebhook(eventName: string, payload: unknown, repo: string): SourceEvent[] {
  if (typeof payload !== 'object' || payload === null) return [];
  const p = payload as Payload;
  const fullName = (p.repository as { full_name?: string } | undefined)?.full_name ?? repo;
  const one = (obj: unknown) => (obj && typeof obj === 'object' ? [normalizeGitHubObject(obj, fullName)] : []);
  switch (eventName) {
    case 'pull_request':
      return one(p.pull_request);
    case 'issues':
      return one(p.issue);
    case 'issue_comment':
      return one(p.comment);
    case 'discussion':
      return one(p.discussion);
    case 'push': {
      if (p.deleted === true) return [];
      const ref = typeof p.ref === 'string' ? p.ref : undefined;
      return ((p.commits as PushCommit[] | undefined) ?? []).map((c) => {
        const ev = normalizeGitHubObject(pushCommitToRest(c), fullName);
        return ref ? { ...ev, metadata: { ...ev.metadata, pushed_ref: ref } } : ev;
      });
    }
    default:
      return [];
  }
}
