/** Pure mapping from GitHub REST objects (and the corpus export shape) to normalised source events. */
import type { ActorRef, ItemType, SourceEvent, SourceRef } from '@engram/contracts';
import type { GitHubUser } from './shapes.js';
import { CommentShape, CommitShape, DiscussionShape, IssueShape, PullShape, fileNames, labelNames } from './shapes.js';

export type GitHubObjectKind = 'pull_request' | 'issue' | 'issue_comment' | 'commit' | 'discussion';

const EXPORT_TYPES: Record<string, GitHubObjectKind> = {
  pull_request: 'pull_request',
  issue: 'issue',
  issue_comment: 'issue_comment',
  comment: 'issue_comment',
  commit: 'commit',
  discussion: 'discussion',
};

/** Tells which kind of GitHub object this is: the export `type` discriminator first, then REST shape. */
export function detectGitHubKind(obj: Record<string, unknown>): GitHubObjectKind | null {
  if (typeof obj.type === 'string' && EXPORT_TYPES[obj.type]) return EXPORT_TYPES[obj.type] ?? null;
  if (typeof obj.sha === 'string' && typeof obj.commit === 'object') return 'commit';
  const htmlUrl = typeof obj.html_url === 'string' ? obj.html_url : '';
  if (typeof obj.number !== 'number') return typeof obj.issue_url === 'string' || htmlUrl.includes('#issuecomment-') ? 'issue_comment' : null;
  if (obj.head || obj.pull_request || /\/pull\/\d+/.test(htmlUrl)) return 'pull_request';
  if (/\/discussions\/\d+/.test(htmlUrl) || 'answer_chosen_at' in obj) return 'discussion';
  return 'issue';
}

/** Maps one GitHub object to a source event. Throws on an object that is none of the known kinds. */
export function normalizeGitHubObject(obj: unknown, repo: string): SourceEvent {
  if (typeof obj !== 'object' || obj === null) throw new Error('GitHub object must be an object');
  const kind = detectGitHubKind(obj as Record<string, unknown>);
  switch (kind) {
    case 'pull_request': return normalizePull(PullShape.parse(obj), repo);
    case 'commit': return normalizeCommit(CommitShape.parse(obj), repo);
    case 'issue': return normalizeIssue(IssueShape.parse(obj), repo);
    case 'issue_comment': return normalizeComment(CommentShape.parse(obj), repo);
    case 'discussion': return normalizeDiscussion(DiscussionShape.parse(obj), repo);
    default: throw new Error(`not a GitHub pull request, issue, comment, commit or discussion: ${JSON.stringify(obj).slice(0, 120)}`);
  }
}

/** `prettier/Prettier` -> `prettier/prettier`: GitHub repository names are case-insensitive. */
export const repoKey = (repo: string): string => repo.toLowerCase();
export const externalIdOf = (repo: string, type: ItemType, id: string | number): string => `github:${repoKey(repo)}:${type}:${id}`;
export const pullKey = (repo: string, n: number): string => `pr:${repoKey(repo)}#${n}`;
export const issueKey = (repo: string, n: number): string => `issue:${repoKey(repo)}#${n}`;
export const commitKey = (sha: string): string => `commit:${sha.toLowerCase()}`;
export const discussionKey = (repo: string, n: number): string => `discussion:${repoKey(repo)}#${n}`;

/** ISO-8601 in UTC, so timestamps from different offsets compare as strings. */
export function isoTime(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`invalid GitHub timestamp: ${value}`);
  return new Date(ms).toISOString();
}
const latest = (...values: (string | null | undefined)[]): string =>
  isoTime(values.filter((v): v is string => !!v).reduce((a, b) => (Date.parse(a) >= Date.parse(b) ? a : b)));

const nonEmpty = (s: string | null | undefined): string | undefined => (s && s.trim() ? s : undefined);

function actor(role: ActorRef['role'], user: GitHubUser, extra: { name?: string | null; email?: string | null } = {}): ActorRef | null {
  const login = nonEmpty(user?.login);
  const name = nonEmpty(extra.name ?? user?.name);
  const email = nonEmpty(extra.email ?? user?.email);
  if (!login && !name && !email) return null;
  const bot = user?.type === 'Bot';
  return { role, provider: 'github', ...(login ? { login } : {}), ...(name ? { name } : {}), ...(email ? { email } : {}), ...(bot ? { bot } : {}) };
}

function uniqueActors(list: (ActorRef | null)[]): ActorRef[] {
  const seen = new Set<string>();
  return list.filter((a): a is ActorRef => {
    if (!a) return false;
    const id = `${a.role}|${a.login ?? ''}|${a.name ?? ''}|${a.email ?? ''}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

const structural = (key: string, relation: SourceRef['relation']): SourceRef => ({ key, relation, confidence: 1 });

function event(e: Omit<SourceEvent, 'source' | 'refs' | 'actors' | 'labels' | 'files' | 'keys'> & Partial<SourceEvent>): SourceEvent {
  return { source: 'github', keys: [], refs: [], actors: [], labels: [], files: [], ...e };
}

export function normalizePull(p: PullShape, repo: string): SourceEvent {
  const mergedAt = p.merged_at ?? p.pull_request?.merged_at ?? null;
  const merged = p.merged ?? mergedAt !== null;
  const shas = p.commit_shas ?? [];
  const files = fileNames(p.files);
  const refs: SourceRef[] = shas.map((sha) => structural(commitKey(sha), 'contains'));
  if (merged && p.merge_commit_sha) refs.push(structural(commitKey(p.merge_commit_sha), 'merged_as'));
  if (p.head?.ref) refs.push(structural(`branch:${repoKey(p.head.repo?.full_name ?? repo)}:${p.head.ref}`, 'on_branch'));
  const author = p.user?.login;
  return event({
    type: 'pull_request',
    externalId: externalIdOf(repo, 'pull_request', p.number),
    url: p.html_url,
    title: p.title,
    body: p.body ?? '',
    occurredAt: isoTime(p.created_at),
    updatedAt: p.updated_at ? isoTime(p.updated_at) : latest(p.created_at, mergedAt, p.closed_at),
    keys: [pullKey(repo, p.number)],
    refs,
    actors: uniqueActors([
      actor('author', p.user),
      actor('merger', p.merged_by),
      ...(p.reviews ?? []).filter((r) => r.user?.login && r.user.login !== author).map((r) => actor('reviewer', r.user)),
      ...(p.assignees ?? []).map((a) => actor('assignee', a)),
    ]),
    labels: labelNames(p.labels),
    files,
    container: repo,
    state: merged ? 'merged' : p.state,
    metadata: {
      number: p.number,
      merged,
      merged_at: mergedAt ? isoTime(mergedAt) : null,
      closed_at: p.closed_at ? isoTime(p.closed_at) : null,
      ...(p.head?.ref ? { head_branch: p.head.ref } : {}),
      ...(p.base?.ref ? { base_branch: p.base.ref } : {}),
      ...(p.merge_commit_sha ? { merge_commit_sha: p.merge_commit_sha } : {}),
      files_total: p.files_total ?? p.changed_files ?? files.length,
      files_truncated: p.files_truncated ?? false,
      commits: p.commits ?? shas.length,
      ...(p.draft != null ? { draft: p.draft } : {}),
      ...(p.additions != null ? { additions: p.additions, deletions: p.deletions ?? 0 } : {}),
    },
  });
}

export function normalizeCommit(c: CommitShape, repo: string): SourceEvent {
  const message = c.commit.message;
  const newline = message.indexOf('\n');
  const authored = c.commit.author?.date ?? c.commit.committer?.date;
  if (!authored) throw new Error(`commit ${c.sha} has no date`);
  const author = actor('author', c.author, { name: c.commit.author?.name, email: c.commit.author?.email });
  const committer = actor('committer', c.committer, { name: c.commit.committer?.name, email: c.commit.committer?.email });
  const sameIdentity = author && committer && author.login === committer.login && author.name === committer.name && author.email === committer.email;
  const files = fileNames(c.files);
  return event({
    type: 'commit',
    externalId: externalIdOf(repo, 'commit', c.sha.toLowerCase()),
    url: c.html_url,
    title: (newline === -1 ? message : message.slice(0, newline)).trim(),
    body: newline === -1 ? '' : message.slice(newline + 1).replace(/^\s*\n/, '').trimEnd(),
    occurredAt: isoTime(authored),
    updatedAt: isoTime(c.commit.committer?.date ?? authored),
    keys: [commitKey(c.sha)],
    actors: uniqueActors([author, sameIdentity ? null : committer]),
    files,
    container: repo,
    metadata: {
      sha: c.sha.toLowerCase(),
      parents: (c.parents ?? []).map((p) => p.sha),
      files_total: c.files_total ?? files.length,
      files_truncated: c.files_truncated ?? false,
      ...(c.stats ? { additions: c.stats.additions ?? 0, deletions: c.stats.deletions ?? 0 } : {}),
    },
  });
}

export function normalizeIssue(i: IssueShape, repo: string): SourceEvent {
  return event({
    type: 'issue',
    externalId: externalIdOf(repo, 'issue', i.number),
    url: i.html_url,
    title: i.title,
    body: i.body ?? '',
    occurredAt: isoTime(i.created_at),
    updatedAt: i.updated_at ? isoTime(i.updated_at) : latest(i.created_at, i.closed_at),
    keys: [issueKey(repo, i.number)],
    actors: uniqueActors([actor('author', i.user), ...(i.assignees ?? []).map((a) => actor('assignee', a))]),
    labels: labelNames(i.labels),
    container: repo,
    state: i.state,
    metadata: {
      number: i.number,
      closed_at: i.closed_at ? isoTime(i.closed_at) : null,
      ...(i.state_reason ? { state_reason: i.state_reason } : {}),
      ...(i.comments != null ? { comments: i.comments } : {}),
      ...(i.milestone ? { milestone: i.milestone.title } : {}),
    },
  });
}

export function normalizeComment(c: CommentShape, repo: string): SourceEvent {
  // A pull request's conversation comments live at /pull/N#issuecomment-ID, an issue's at /issues/N#...
  const onPull = /\/pull\/\d+/.test(c.html_url);
  const parent = /\/(?:pull|issues)\/(\d+)/.exec(c.html_url)?.[1] ?? /\/issues\/(\d+)$/.exec(c.issue_url ?? '')?.[1];
  const number = parent ? Number(parent) : null;
  return event({
    type: 'comment',
    externalId: externalIdOf(repo, 'comment', c.id),
    url: c.html_url,
    title: null,
    body: c.body ?? '',
    occurredAt: isoTime(c.created_at),
    updatedAt: isoTime(c.updated_at ?? c.created_at),
    refs: number === null ? [] : [structural(onPull ? pullKey(repo, number) : issueKey(repo, number), 'parent')],
    actors: uniqueActors([actor('commenter', c.user)]),
    container: repo,
    metadata: { id: c.id, ...(number !== null ? { issue_number: number, parent_type: onPull ? 'pull_request' : 'issue' } : {}) },
  });
}

export function normalizeDiscussion(d: DiscussionShape, repo: string): SourceEvent {
  return event({
    type: 'discussion',
    externalId: externalIdOf(repo, 'discussion', d.number),
    url: d.html_url,
    title: d.title,
    body: d.body ?? '',
    occurredAt: isoTime(d.created_at),
    updatedAt: d.updated_at ? isoTime(d.updated_at) : latest(d.created_at, d.closed_at, d.answer_chosen_at),
    keys: [discussionKey(repo, d.number)],
    actors: uniqueActors([actor('author', d.user)]),
    labels: labelNames(d.labels),
    container: repo,
    state: d.state === 'closed' ? 'closed' : 'open',
    metadata: {
      number: d.number,
      ...(d.category ? { category: d.category.name } : {}),
      answered: !!d.answer_chosen_at,
      ...(d.answer_chosen_at ? { answer_chosen_at: isoTime(d.answer_chosen_at) } : {}),
      closed_at: d.closed_at ? isoTime(d.closed_at) : null,
    },
  });
}
