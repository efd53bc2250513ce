/** REST routes of the fake GitHub: pulls, issues, comments, commits. Docs, GraphQL and search live beside. */
import type { RepoModel } from './model.js';
import { commitDate, pullUpdatedAt, resolveCommit, timeOf } from './model.js';
import type { FakeRequest, FakeResponse } from './paginate.js';
import { notFound, paginate, sortBy, unprocessable } from './paginate.js';
import type { Urls } from './rest.js';
import { restComment, restCommit, restFile, restIssue, restPull, restPullAsIssue, restRepository } from './rest.js';

export interface RouteContext { model: RepoModel; urls: Urls }
export interface Route {
  method: 'GET' | 'POST';
  /** Route template, used as the key of the request counters, e.g. `GET /repos/:o/:r/pulls`. */
  name: string;
  pattern: RegExp;
  handle(req: FakeRequest, params: string[], ctx: RouteContext): FakeResponse;
}

const direction = (req: FakeRequest, fallback: 'asc' | 'desc'): 'asc' | 'desc' => {
  const d = req.query.get('direction');
  return d === 'asc' || d === 'desc' ? d : fallback;
};
const stateFilter = (req: FakeRequest) => {
  const s = req.query.get('state') ?? 'open';
  return (state: string) => s === 'all' || s === state;
};
const sinceFilter = (req: FakeRequest): ((iso: string) => boolean) | null => {
  const raw = req.query.get('since');
  if (raw === null) return null;
  const since = Date.parse(raw);
  return Number.isNaN(since) ? null : (iso) => timeOf(iso) >= since;
};

const listPulls: Route['handle'] = (req, _p, { model, urls }) => {
  const sort = req.query.get('sort') ?? 'created';
  if (!['created', 'updated', 'popularity', 'long-running'].includes(sort)) return unprocessable(`Invalid sort: ${sort}`);
  const keep = stateFilter(req);
  const pulls = [...model.pulls.values()].filter((p) => keep(p.state));
  const key = sort === 'updated' ? (p: typeof pulls[number]) => timeOf(pullUpdatedAt(p)) : (p: typeof pulls[number]) => timeOf(p.created_at);
  // GitHub: direction defaults to desc for `created` (or no sort), asc otherwise.
  const sorted = sortBy(pulls, key, (p) => p.number, direction(req, sort === 'created' ? 'desc' : 'asc'));
  return paginate(req, sorted.map((p) => restPull(p, model, urls, false)));
};

const listIssues: Route['handle'] = (req, _p, { model, urls }) => {
  const keep = stateFilter(req);
  const since = sinceFilter(req);
  const sort = req.query.get('sort') ?? 'created';
  type Entry = { number: number; created: string; updated: string; json: Record<string, unknown> };
  const entries: Entry[] = [
    ...[...model.issues.values()].filter((i) => keep(i.state)).map((i) => ({ number: i.number, created: i.created_at, updated: i.updated_at, json: restIssue(i, urls) })),
    ...[...model.pulls.values()].filter((p) => keep(p.state)).map((p) => ({ number: p.number, created: p.created_at, updated: pullUpdatedAt(p), json: restPullAsIssue(p, urls) })),
  ].filter((e) => !since || since(e.updated));
  const key = sort === 'updated' ? (e: Entry) => timeOf(e.updated) : (e: Entry) => timeOf(e.created);
  return paginate(req, sortBy(entries, key, (e) => e.number, direction(req, 'desc')).map((e) => e.json));
};

const listComments: Route['handle'] = (req, _p, { model, urls }) => {
  const since = sinceFilter(req);
  const sort = req.query.get('sort');
  const comments = model.comments.filter((c) => !since || since(c.updated_at));
  const key = sort === 'updated' ? (c: typeof comments[number]) => timeOf(c.updated_at) : (c: typeof comments[number]) => timeOf(c.created_at);
  const dir = sort ? direction(req, 'asc') : 'asc';
  return paginate(req, sortBy(comments, key, (c) => c.id, dir).map((c) => restComment(c, model, urls)));
};

const listCommits: Route['handle'] = (req, _p, { model, urls }) => {
  let commits = model.commits;
  const sha = req.query.get('sha');
  if (sha) {
    const start = resolveCommit(model, sha);
    if (!start) return notFound();
    commits = commits.slice(commits.indexOf(start));
  }
  const since = req.query.get('since');
  const until = req.query.get('until');
  const path = req.query.get('path');
  commits = commits.filter((c) =>
    (!since || timeOf(commitDate(c)) >= Date.parse(since)) &&
    (!until || timeOf(commitDate(c)) <= Date.parse(until)) &&
    (!path || (c.files ?? []).some((f) => f.filename === path || f.filename.startsWith(`${path.replace(/\/$/, '')}/`))));
  return paginate(req, commits.map((c) => restCommit(c, urls, false)));
};

const pullOr404 = (n: string | undefined, model: RepoModel) => model.pulls.get(Number(n));

export const restRoutes: Route[] = [
  { method: 'GET', name: 'GET /repos/:o/:r', pattern: /^\/repos\/([^/]+)\/([^/]+)$/, handle: (_q, _p, { model, urls }) => ({ status: 200, body: restRepository(model, urls) }) },
  { method: 'GET', name: 'GET /repos/:o/:r/pulls', pattern: /^\/repos\/([^/]+)\/([^/]+)\/pulls$/, handle: listPulls },
  {
    method: 'GET', name: 'GET /repos/:o/:r/pulls/:n', pattern: /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/,
    handle: (_q, [, , n], { model, urls }) => {
      const p = pullOr404(n, model);
      return p ? { status: 200, body: restPull(p, model, urls, true) } : notFound();
    },
  },
  {
    method: 'GET', name: 'GET /repos/:o/:r/pulls/:n/files', pattern: /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/files$/,
    handle: (req, [, , n], { model, urls }) => {
      const p = pullOr404(n, model);
      const ref = p?.commit_shas?.at(-1) ?? 'HEAD';
      return p ? paginate(req, (p.files ?? []).map((f) => restFile(f, ref, urls))) : notFound();
    },
  },
  {
    method: 'GET', name: 'GET /repos/:o/:r/pulls/:n/commits', pattern: /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/commits$/,
    handle: (req, [, , n], { model, urls }) => {
      const p = pullOr404(n, model);
      if (!p) return notFound();
      const commits = (p.commit_shas ?? []).map((sha) => model.commitsBySha.get(sha) ?? {
        type: 'commit' as const, sha, author: p.user, committer: p.user, parents: [],
        commit: { message: p.title, author: { name: p.user?.login ?? 'unknown', date: p.created_at }, committer: { name: p.user?.login ?? 'unknown', date: p.created_at } },
      });
      return paginate(req, commits.map((c) => restCommit(c, urls, false)), { maxPerPage: 100 });
    },
  },
  {
    method: 'GET', name: 'GET /repos/:o/:r/pulls/:n/reviews', pattern: /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/reviews$/,
    handle: (req, [, , n], { model, urls }) => {
      const p = pullOr404(n, model);
      if (!p) return notFound();
      return paginate(req, (p.reviews ?? []).map((r, i) => ({
        id: r.id ?? p.number * 1000 + i,
        user: r.user ? { login: r.user.login, type: 'User' } : null,
        body: r.body ?? '',
        state: r.state,
        submitted_at: r.submitted_at,
        html_url: `${urls.repoHtml}/pull/${p.number}#pullrequestreview-${r.id ?? p.number * 1000 + i}`,
        pull_request_url: `${urls.repoApi}/pulls/${p.number}`,
        commit_id: p.commit_shas?.at(-1) ?? null,
      })));
    },
  },
  { method: 'GET', name: 'GET /repos/:o/:r/issues', pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues$/, handle: listIssues },
  { method: 'GET', name: 'GET /repos/:o/:r/issues/comments', pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments$/, handle: listComments },
  {
    method: 'GET', name: 'GET /repos/:o/:r/issues/:n', pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/,
    handle: (_q, [, , n], { model, urls }) => {
      const issue = model.issues.get(Number(n));
      if (issue) return { status: 200, body: restIssue(issue, urls) };
      const pull = model.pulls.get(Number(n));
      return pull ? { status: 200, body: restPullAsIssue(pull, urls) } : notFound();
    },
  },
  {
    method: 'GET', name: 'GET /repos/:o/:r/issues/:n/comments', pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/,
    handle: (req, [, , n], { model, urls }) => {
      if (!model.issues.has(Number(n)) && !model.pulls.has(Number(n))) return notFound();
      const comments = model.comments.filter((c) => c.issue_number === Number(n));
      return paginate(req, sortBy(comments, (c) => timeOf(c.created_at), (c) => c.id, 'asc').map((c) => restComment(c, model, urls)));
    },
  },
  { method: 'GET', name: 'GET /repos/:o/:r/commits', pattern: /^\/repos\/([^/]+)\/([^/]+)\/commits$/, handle: listCommits },
  {
    method: 'GET', name: 'GET /repos/:o/:r/commits/:sha', pattern: /^\/repos\/([^/]+)\/([^/]+)\/commits\/([^/]+)$/,
    handle: (_q, [, , ref], { model, urls }) => {
      const c = ref ? resolveCommit(model, ref) : undefined;
      return c ? { status: 200, body: restCommit(c, urls, true) } : unprocessable(`No commit found for SHA: ${ref}`);
    },
  },
];
