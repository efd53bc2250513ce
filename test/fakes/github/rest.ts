/** Turns fake repository items into the JSON objects api.github.com serves. */
import { createHash } from 'node:crypto';
import type { FakeCommit, FakeDiscussion, FakeFile, FakeIssue, FakeIssueComment, FakeLabel, FakePull, FakeUser, RepoModel } from './model.js';
import { pullUpdatedAt, restTime } from './model.js';

export const HTML = 'https://github.com';

export interface Urls { api: string; repoApi: string; repoHtml: string }
export const urlsFor = (model: RepoModel, api: string): Urls => ({
  api,
  repoApi: `${api}/repos/${model.fullName}`,
  repoHtml: `${HTML}/${model.fullName}`,
});

const numericId = (seed: string): number => createHash('sha1').update(seed).digest().readUInt32BE(0) % 900_000_000 + 1;
const fakeSha = (seed: string): string => createHash('sha1').update(seed).digest('hex');
const time = (iso: string | null | undefined): string | null => (iso ? restTime(iso) : null);

export function restUser(user: FakeUser | null | undefined, api: string): Record<string, unknown> | null {
  if (!user?.login) return null;
  return {
    login: user.login,
    id: numericId(`user:${user.login}`),
    node_id: `U_${numericId(`user:${user.login}`)}`,
    type: user.type ?? 'User',
    site_admin: false,
    url: `${api}/users/${user.login}`,
    html_url: `${HTML}/${user.login}`,
  };
}

const restLabel = (label: FakeLabel, u: Urls) => ({
  id: numericId(`label:${label.name}`),
  name: label.name,
  color: label.color ?? 'ededed',
  default: false,
  url: `${u.repoApi}/labels/${encodeURIComponent(label.name)}`,
});

function restRepo(model: RepoModel, u: Urls) {
  return {
    id: numericId(`repo:${model.fullName}`),
    name: model.name,
    full_name: model.fullName,
    private: false,
    owner: restUser({ login: model.owner, type: 'Organization' }, u.api),
    html_url: u.repoHtml,
    url: u.repoApi,
    default_branch: model.defaultBranch,
  };
}

export const restRepository = restRepo;

export function restPull(p: FakePull, model: RepoModel, u: Urls, detail: boolean): Record<string, unknown> {
  const shas = p.commit_shas ?? [];
  const headRef = p.head_ref ?? `pr-${p.number}`;
  const base = {
    url: `${u.repoApi}/pulls/${p.number}`,
    id: numericId(`pull:${p.number}`),
    node_id: `PR_${numericId(`pull:${p.number}`)}`,
    html_url: `${u.repoHtml}/pull/${p.number}`,
    diff_url: `${u.repoHtml}/pull/${p.number}.diff`,
    patch_url: `${u.repoHtml}/pull/${p.number}.patch`,
    issue_url: `${u.repoApi}/issues/${p.number}`,
    commits_url: `${u.repoApi}/pulls/${p.number}/commits`,
    number: p.number,
    state: p.state,
    locked: false,
    title: p.title,
    user: restUser(p.user, u.api),
    body: p.body,
    labels: (p.labels ?? []).map((l) => restLabel(l, u)),
    created_at: time(p.created_at),
    updated_at: time(pullUpdatedAt(p)),
    closed_at: time(p.closed_at),
    merged_at: time(p.merged_at),
    merge_commit_sha: p.merge_commit_sha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    head: { label: `${model.owner}:${headRef}`, ref: headRef, sha: shas.at(-1) ?? fakeSha(`head:${p.number}`), repo: restRepo(model, u) },
    base: { label: `${model.owner}:${model.defaultBranch}`, ref: model.defaultBranch, sha: fakeSha(`base:${p.number}`), repo: restRepo(model, u) },
    author_association: 'CONTRIBUTOR',
    draft: false,
  };
  if (!detail) return base;
  const files = p.files ?? [];
  return {
    ...base,
    merged: p.merged ?? p.merged_at !== null,
    mergeable: null,
    merged_by: null,
    comments: 0,
    review_comments: 0,
    commits: shas.length,
    additions: files.reduce((n, f) => n + (f.additions ?? 0), 0),
    deletions: files.reduce((n, f) => n + (f.deletions ?? 0), 0),
    changed_files: files.length,
  };
}

export function restFile(f: FakeFile, ref: string, u: Urls): Record<string, unknown> {
  const additions = f.additions ?? 0;
  const deletions = f.deletions ?? 0;
  return {
    sha: fakeSha(`file:${ref}:${f.filename}`),
    filename: f.filename,
    status: f.status,
    additions,
    deletions,
    changes: additions + deletions,
    blob_url: `${u.repoHtml}/blob/${ref}/${f.filename}`,
    raw_url: `${u.repoHtml}/raw/${ref}/${f.filename}`,
    contents_url: `${u.repoApi}/contents/${f.filename}?ref=${ref}`,
  };
}

export function restCommit(c: FakeCommit, u: Urls, detail: boolean): Record<string, unknown> {
  const git = c.commit;
  const gitActor = (a: { name: string; email?: string; date: string }) => ({ name: a.name, ...(a.email ? { email: a.email } : {}), date: restTime(a.date) });
  const base = {
    sha: c.sha,
    node_id: `C_${c.sha.slice(0, 20)}`,
    commit: {
      author: gitActor(git.author),
      committer: gitActor(git.committer),
      message: git.message,
      tree: { sha: fakeSha(`tree:${c.sha}`), url: `${u.repoApi}/git/trees/${fakeSha(`tree:${c.sha}`)}` },
      url: `${u.repoApi}/git/commits/${c.sha}`,
      comment_count: 0,
    },
    url: `${u.repoApi}/commits/${c.sha}`,
    html_url: `${u.repoHtml}/commit/${c.sha}`,
    comments_url: `${u.repoApi}/commits/${c.sha}/comments`,
    author: restUser(c.author, u.api),
    committer: restUser(c.committer, u.api),
    parents: c.parents.map((p) => ({ sha: p.sha, url: `${u.repoApi}/commits/${p.sha}`, html_url: `${u.repoHtml}/commit/${p.sha}` })),
  };
  if (!detail) return base;
  const files = (c.files ?? []).map((f) => restFile(f, c.sha, u));
  const additions = files.reduce((n, f) => n + (f.additions as number), 0);
  const deletions = files.reduce((n, f) => n + (f.deletions as number), 0);
  return { ...base, stats: { total: additions + deletions, additions, deletions }, files };
}

export function restIssue(i: FakeIssue, u: Urls): Record<string, unknown> {
  return {
    url: `${u.repoApi}/issues/${i.number}`,
    repository_url: u.repoApi,
    comments_url: `${u.repoApi}/issues/${i.number}/comments`,
    html_url: `${u.repoHtml}/issues/${i.number}`,
    id: numericId(`issue:${i.number}`),
    node_id: `I_${numericId(`issue:${i.number}`)}`,
    number: i.number,
    title: i.title,
    user: restUser(i.user, u.api),
    labels: (i.labels ?? []).map((l) => restLabel(l, u)),
    state: i.state,
    state_reason: i.state_reason ?? (i.state === 'closed' ? 'completed' : null),
    locked: false,
    assignee: restUser(i.assignees?.[0], u.api),
    assignees: (i.assignees ?? []).map((a) => restUser(a, u.api)),
    comments: 0,
    created_at: time(i.created_at),
    updated_at: time(i.updated_at),
    closed_at: time(i.closed_at),
    author_association: 'NONE',
    body: i.body,
  };
}

/** A pull request as the issues endpoints list it: issue fields plus a `pull_request` marker. */
export function restPullAsIssue(p: FakePull, u: Urls): Record<string, unknown> {
  return {
    url: `${u.repoApi}/issues/${p.number}`,
    repository_url: u.repoApi,
    html_url: `${u.repoHtml}/pull/${p.number}`,
    id: numericId(`pull-issue:${p.number}`),
    number: p.number,
    title: p.title,
    user: restUser(p.user, u.api),
    labels: (p.labels ?? []).map((l) => restLabel(l, u)),
    state: p.state,
    locked: false,
    assignees: [],
    comments: 0,
    created_at: time(p.created_at),
    updated_at: time(pullUpdatedAt(p)),
    closed_at: time(p.closed_at),
    author_association: 'CONTRIBUTOR',
    body: p.body,
    pull_request: {
      url: `${u.repoApi}/pulls/${p.number}`,
      html_url: `${u.repoHtml}/pull/${p.number}`,
      diff_url: `${u.repoHtml}/pull/${p.number}.diff`,
      patch_url: `${u.repoHtml}/pull/${p.number}.patch`,
      merged_at: time(p.merged_at),
    },
  };
}

export function restComment(c: FakeIssueComment, model: RepoModel, u: Urls): Record<string, unknown> {
  const kind = model.pulls.has(c.issue_number) ? 'pull' : 'issues';
  return {
    url: `${u.repoApi}/issues/comments/${c.id}`,
    html_url: `${u.repoHtml}/${kind}/${c.issue_number}#issuecomment-${c.id}`,
    issue_url: `${u.repoApi}/issues/${c.issue_number}`,
    id: c.id,
    node_id: `IC_${c.id}`,
    user: restUser(c.user, u.api),
    created_at: time(c.created_at),
    updated_at: time(c.updated_at),
    author_association: 'CONTRIBUTOR',
    body: c.body,
  };
}

/** A discussion as GraphQL returns it (camelCase, `url` is the web page). */
export function graphqlDiscussion(d: FakeDiscussion, u: Urls): Record<string, unknown> {
  return {
    id: `D_${numericId(`discussion:${d.number}`)}`,
    number: d.number,
    title: d.title,
    body: d.body,
    url: `${u.repoHtml}/discussions/${d.number}`,
    createdAt: time(d.created_at),
    updatedAt: time(d.updated_at),
    closed: d.closed ?? false,
    closedAt: time(d.closed_at),
    answerChosenAt: time(d.answer_chosen_at),
    locked: false,
    author: d.user?.login ? { login: d.user.login } : null,
    category: d.category ? { name: d.category.name, slug: d.category.slug ?? d.category.name.toLowerCase() } : null,
    labels: { nodes: (d.labels ?? []).map((l) => ({ name: l.name })) },
    comments: { totalCount: 0 },
  };
}

export const blobSha = (content: string): string => createHash('sha1').update(`blob ${Buffer.byteLength(content)}\0${content}`).digest('hex');
export const treeSha = fakeSha;
