/**
 * The parts of GitHub REST objects the normalisers read. Tolerant: every field a list endpoint,
 * a detail endpoint, a webhook or the corpus export may omit is optional.
 */
import { z } from 'zod';

const text = z.string().nullish();
const count = z.number().nullish();

/** `type` is GitHub's account type: `User`, `Organization` or `Bot` (an app's account). */
export const GitHubUser = z.object({ login: z.string().min(1), name: text, email: text, type: text }).nullish();
export type GitHubUser = z.infer<typeof GitHubUser>;

const Label = z.union([z.string(), z.object({ name: z.string() })]);
const ChangedFile = z.union([z.string(), z.object({ filename: z.string() })]);

export const labelNames = (labels: readonly z.infer<typeof Label>[] | null | undefined): string[] =>
  (labels ?? []).map((l) => (typeof l === 'string' ? l : l.name));
export const fileNames = (files: readonly z.infer<typeof ChangedFile>[] | null | undefined): string[] =>
  (files ?? []).map((f) => (typeof f === 'string' ? f : f.filename));

const Review = z.object({ user: GitHubUser, state: text, submitted_at: text });

/** REST pull request (list or detail), webhook `pull_request`, or corpus export; enriched by the sync with files/commits/reviews. */
export const PullShape = z.object({
  number: z.number().int(),
  html_url: z.string(),
  title: z.string(),
  body: text,
  user: GitHubUser,
  labels: z.array(Label).nullish(),
  state: z.string(),
  draft: z.boolean().nullish(),
  merged: z.boolean().nullish(),
  created_at: z.string(),
  updated_at: text,
  merged_at: text,
  closed_at: text,
  merge_commit_sha: text,
  merged_by: GitHubUser,
  assignees: z.array(GitHubUser).nullish(),
  head: z.object({ ref: z.string(), sha: text, repo: z.object({ full_name: z.string() }).nullish() }).nullish(),
  base: z.object({ ref: z.string() }).nullish(),
  /** Present when a pull request is listed through the issues endpoints. */
  pull_request: z.object({ merged_at: text }).nullish(),
  files: z.array(ChangedFile).nullish(),
  files_total: count,
  files_truncated: z.boolean().nullish(),
  changed_files: count,
  commit_shas: z.array(z.string()).nullish(),
  commits: count,
  additions: count,
  deletions: count,
  reviews: z.array(Review).nullish(),
});
export type PullShape = z.infer<typeof PullShape>;

const GitActor = z.object({ name: text, email: text, date: text }).nullish();

export const CommitShape = z.object({
  sha: z.string().regex(/^[0-9a-f]{40}$/i),
  html_url: z.string(),
  commit: z.object({ message: z.string(), author: GitActor, committer: GitActor }),
  author: GitHubUser,
  committer: GitHubUser,
  parents: z.array(z.object({ sha: z.string() })).nullish(),
  files: z.array(ChangedFile).nullish(),
  files_total: count,
  files_truncated: z.boolean().nullish(),
  stats: z.object({ additions: count, deletions: count }).nullish(),
});
export type CommitShape = z.infer<typeof CommitShape>;

export const IssueShape = z.object({
  number: z.number().int(),
  html_url: z.string(),
  title: z.string(),
  body: text,
  user: GitHubUser,
  labels: z.array(Label).nullish(),
  assignees: z.array(GitHubUser).nullish(),
  state: z.string(),
  state_reason: text,
  comments: count,
  milestone: z.object({ title: z.string() }).nullish(),
  created_at: z.string(),
  updated_at: text,
  closed_at: text,
});
export type IssueShape = z.infer<typeof IssueShape>;

export const CommentShape = z.object({
  id: z.number().int(),
  html_url: z.string(),
  body: text,
  user: GitHubUser,
  issue_url: text,
  created_at: z.string(),
  updated_at: text,
});
export type CommentShape = z.infer<typeof CommentShape>;

/** REST / webhook discussion. The GraphQL stream maps its nodes to this shape. */
export const DiscussionShape = z.object({
  number: z.number().int(),
  html_url: z.string(),
  title: z.string(),
  body: text,
  user: GitHubUser,
  labels: z.array(Label).nullish(),
  category: z.object({ name: z.string() }).nullish(),
  state: text,
  created_at: z.string(),
  updated_at: text,
  closed_at: text,
  answer_chosen_at: text,
});
export type DiscussionShape = z.infer<typeof DiscussionShape>;
