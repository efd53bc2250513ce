import { z } from 'zod';
import { refineStorable } from './text.js';

/** Provider systems Engram syncs from. Used as `source` on every item. */
export const SourceSystem = z.enum(['github', 'linear', 'vercel']);
export type SourceSystem = z.infer<typeof SourceSystem>;

/**
 * Content types. Observations: everything but `document` and `project`, which become documents (`doc_`).
 */
export const ItemType = z.enum([
  'pull_request',
  'issue',
  'comment',
  'commit',
  'discussion',
  'deployment',
  'build_log',
  'document',
  'project',
]);
export type ItemType = z.infer<typeof ItemType>;

export const DOCUMENT_TYPES: ReadonlySet<ItemType> = new Set(['document', 'project']);
export const isDocumentType = (type: ItemType): boolean => DOCUMENT_TYPES.has(type);

export const ActorRole = z.enum(['author', 'committer', 'reviewer', 'assignee', 'commenter', 'creator', 'merger']);
export type ActorRole = z.infer<typeof ActorRole>;

/** A person as a provider names them. The indexer merges refs into one actor per person. */
export const ActorRef = z.object({
  role: ActorRole,
  provider: SourceSystem,
  /** Provider login / username / user id (GitHub login, Linear user id, Vercel username). */
  login: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  email: z.string().min(1).optional(),
  /** The provider says the account is automation (GitHub's user `type: "Bot"`); see `automation.ts`. */
  bot: z.boolean().optional(),
});
export type ActorRef = z.infer<typeof ActorRef>;

/**
 * Linking keys. Canonical forms (lower-case except where the provider is case-sensitive):
 * - `commit:<40-hex sha>`
 * - `pr:<owner>/<repo>#<number>`          GitHub pull request
 * - `issue:<owner>/<repo>#<number>`       GitHub issue (or a `#n` that is not a known PR)
 * - `discussion:<owner>/<repo>#<number>`
 * - `linear:<TEAM-123>`                   Linear issue identifier, upper-case
 * - `branch:<owner>/<repo>:<branch>`
 * - `deployment:<vercel deployment id>`
 * - `project:linear:<id>`
 */
export const RefRelation = z.enum([
  'contains', // a PR contains this commit
  'merged_as', // a PR was merged as this commit
  'built_from', // a deployment built this commit
  'fixes', // fixes/closes/resolves
  'reverts',
  'references', // a plain mention
  'on_branch',
  'attachment', // Linear attachment linking a PR
  'parent', // a comment's parent item, a log's deployment
  'in_project',
]);
export type RefRelation = z.infer<typeof RefRelation>;

export const SourceRef = z.object({
  key: z.string().min(1),
  relation: RefRelation,
  /** 1 for structured provider fields; lower for text-extracted references. */
  confidence: z.number().min(0).max(1).default(1),
});
export type SourceRef = z.infer<typeof SourceRef>;

/**
 * One provider object, normalised. Every connector (sync, webhook, import) produces these, and the
 * indexer consumes only these.
 */
export const SourceEvent = z.object({
  source: SourceSystem,
  type: ItemType,
  /** Stable across syncs, e.g. `github:prettier/prettier:pull_request:123`. */
  externalId: z.string().min(1),
  /** Human-facing provider URL (html_url). */
  url: z.string().url(),
  title: z.string().nullable(),
  /** Main text: PR/issue body, commit message body, comment text, build log, Markdown doc. */
  body: z.string(),
  occurredAt: z.string().datetime({ offset: true }),
  /** Provider's last-modified time; a stale event never overwrites a newer one. */
  updatedAt: z.string().datetime({ offset: true }),
  /** Identity keys of this object (see linking keys); other items' refs point at these. */
  keys: z.array(z.string().min(1)).default([]),
  refs: z.array(SourceRef).default([]),
  actors: z.array(ActorRef).default([]),
  labels: z.array(z.string()).default([]),
  /** Changed or touched file paths (PRs, commits). */
  files: z.array(z.string()).default([]),
  /** Repository `owner/name`, Linear team key, or Vercel project name. */
  container: z.string().optional(),
  state: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
})
  // Every string, metadata included, must be storable: one bad commit message fails its own item only.
  .superRefine(refineStorable);
export type SourceEvent = z.infer<typeof SourceEvent>;
export type SourceEventInput = z.input<typeof SourceEvent>;
