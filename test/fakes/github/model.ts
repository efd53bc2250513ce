/**
 * The repository a fake GitHub serves, built once from export-shaped items (corpus.json objects
 * with a `type` discriminator) plus issue / issue comment / discussion objects in REST shape.
 */

export interface FakeUser { login: string; type?: string }
export interface FakeLabel { name: string; color?: string }
export interface FakeFile { filename: string; status: string; additions?: number; deletions?: number }

export interface FakePull {
  type: 'pull_request';
  number: number;
  title: string;
  body: string | null;
  user: FakeUser | null;
  labels?: FakeLabel[];
  state: 'open' | 'closed';
  merged?: boolean;
  created_at: string;
  updated_at?: string;
  merged_at: string | null;
  closed_at: string | null;
  merge_commit_sha: string | null;
  files?: FakeFile[];
  commit_shas?: string[];
  head_ref?: string;
  reviews?: { id?: number; user: FakeUser | null; state: string; submitted_at: string; body?: string }[];
}

export interface FakeCommit {
  type: 'commit';
  sha: string;
  commit: {
    message: string;
    author: { name: string; email?: string; date: string };
    committer: { name: string; email?: string; date: string };
  };
  author: FakeUser | null;
  committer: FakeUser | null;
  parents: { sha: string }[];
  files?: FakeFile[];
}

export interface FakeIssue {
  type: 'issue';
  number: number;
  title: string;
  body: string | null;
  user: FakeUser | null;
  labels?: FakeLabel[];
  assignees?: FakeUser[];
  state: 'open' | 'closed';
  state_reason?: string | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

export interface FakeIssueComment {
  type: 'issue_comment';
  id: number;
  issue_number: number;
  body: string;
  user: FakeUser | null;
  created_at: string;
  updated_at: string;
}

export interface FakeDiscussion {
  type: 'discussion';
  number: number;
  title: string;
  body: string;
  user: FakeUser | null;
  category?: { name: string; slug?: string };
  labels?: FakeLabel[];
  closed?: boolean;
  closed_at?: string | null;
  answer_chosen_at?: string | null;
  created_at: string;
  updated_at: string;
}

export type FakeGitHubItem = FakePull | FakeCommit | FakeIssue | FakeIssueComment | FakeDiscussion;

export interface FakeDoc { path: string; content: string }

export interface RepoModel {
  owner: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  pulls: Map<number, FakePull>;
  issues: Map<number, FakeIssue>;
  comments: FakeIssueComment[];
  discussions: FakeDiscussion[];
  /** Newest first, as `git log` and GitHub list them. */
  commits: FakeCommit[];
  commitsBySha: Map<string, FakeCommit>;
  docs: Map<string, string>;
}

/** GitHub REST timestamps are UTC without milliseconds. */
export const restTime = (iso: string): string => new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z');
export const timeOf = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : 0);

export const pullUpdatedAt = (p: FakePull): string => p.updated_at ?? p.closed_at ?? p.merged_at ?? p.created_at;
export const commitDate = (c: FakeCommit): string => c.commit.committer.date;

export function buildRepoModel(repo: string, items: readonly unknown[], docs: readonly FakeDoc[], defaultBranch: string): RepoModel {
  const [owner, name] = repo.split('/');
  if (!owner || !name) throw new Error(`fake GitHub: repo must be "owner/name", got "${repo}"`);
  const model: RepoModel = {
    owner,
    name,
    fullName: repo,
    defaultBranch,
    pulls: new Map(),
    issues: new Map(),
    comments: [],
    discussions: [],
    commits: [],
    commitsBySha: new Map(),
    docs: new Map(docs.map((d) => [d.path, d.content])),
  };
  for (const raw of items) {
    const item = raw as FakeGitHubItem;
    switch (item.type) {
      case 'pull_request': model.pulls.set(item.number, item); break;
      case 'commit': model.commits.push(item); model.commitsBySha.set(item.sha, item); break;
      case 'issue': model.issues.set(item.number, item); break;
      case 'issue_comment': model.comments.push(item); break;
      case 'discussion': model.discussions.push(item); break;
      default: throw new Error(`fake GitHub: unknown item type ${String((raw as { type?: unknown }).type)}`);
    }
  }
  model.commits.sort((a, b) => timeOf(commitDate(b)) - timeOf(commitDate(a)));
  return model;
}

/** Finds a commit by full sha, unique prefix (7+ chars), or the default branch name / HEAD. */
export function resolveCommit(model: RepoModel, ref: string): FakeCommit | undefined {
  if (ref === model.defaultBranch || ref === 'HEAD') return model.commits[0];
  const exact = model.commitsBySha.get(ref);
  if (exact || ref.length < 7) return exact;
  return model.commits.find((c) => c.sha.startsWith(ref));
}
