/** Git trees and contents (Markdown docs), GraphQL discussions and issue search of the fake GitHub. */
import type { RepoModel } from './model.js';
import { pullUpdatedAt, resolveCommit, timeOf } from './model.js';
import type { FakeRequest, FakeResponse } from './paginate.js';
import { notFound, paginate, sortBy } from './paginate.js';
import { blobSha, graphqlDiscussion, restIssue, restPullAsIssue, treeSha } from './rest.js';
import type { Route, RouteContext } from './routes.js';

interface TreeEntry { path: string; type: 'blob' | 'tree'; sha: string; size?: number }

function treeOf(model: RepoModel): { sha: string; entries: TreeEntry[] } {
  const entries = new Map<string, TreeEntry>();
  for (const [path, content] of model.docs) {
    entries.set(path, { path, type: 'blob', sha: blobSha(content), size: Buffer.byteLength(content) });
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!entries.has(dir)) entries.set(dir, { path: dir, type: 'tree', sha: treeSha(`dir:${dir}`) });
    }
  }
  const sorted = [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { sha: treeSha(`tree:${sorted.map((e) => `${e.path}:${e.sha}`).join('\n')}`), entries: sorted };
}

const refExists = (model: RepoModel, ref: string, tree: { sha: string }) =>
  ref === tree.sha || ref === model.defaultBranch || ref === 'HEAD' || resolveCommit(model, ref) !== undefined;

function getTree(req: FakeRequest, [, , ref]: string[], { model, urls }: RouteContext): FakeResponse {
  const tree = treeOf(model);
  if (!ref || !refExists(model, ref, tree)) return notFound();
  const recursive = req.query.has('recursive') && !['0', 'false'].includes(req.query.get('recursive') ?? '');
  const entries = recursive ? tree.entries : tree.entries.filter((e) => !e.path.includes('/'));
  return {
    status: 200,
    body: {
      sha: tree.sha,
      url: `${urls.repoApi}/git/trees/${tree.sha}`,
      tree: entries.map((e) => ({
        path: e.path, mode: e.type === 'blob' ? '100644' : '040000', type: e.type, sha: e.sha,
        ...(e.size !== undefined ? { size: e.size } : {}), url: `${urls.repoApi}/git/${e.type === 'blob' ? 'blobs' : 'trees'}/${e.sha}`,
      })),
      truncated: false,
    },
  };
}

/** GitHub wraps base64 content at 60 characters. */
const base64Lines = (content: string) => (Buffer.from(content).toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n';

function getContents(req: FakeRequest, [, , rawPath]: string[], { model, urls }: RouteContext): FakeResponse {
  const path = decodeURIComponent(rawPath ?? '').replace(/\/$/, '');
  const ref = req.query.get('ref') ?? model.defaultBranch;
  if (!refExists(model, ref, treeOf(model))) return notFound();
  const fileJson = (p: string, content: string | undefined) => ({
    type: 'file', name: p.split('/').at(-1), path: p, sha: blobSha(content ?? ''), size: Buffer.byteLength(content ?? ''),
    url: `${urls.repoApi}/contents/${p}?ref=${ref}`, html_url: `${urls.repoHtml}/blob/${ref}/${p}`,
    download_url: `https://raw.githubusercontent.com/${model.fullName}/${ref}/${p}`,
  });
  const content = model.docs.get(path);
  if (content !== undefined) return { status: 200, body: { ...fileJson(path, content), encoding: 'base64', content: base64Lines(content) } };
  const children = treeOf(model).entries.filter((e) => e.path.startsWith(path ? `${path}/` : '') && !e.path.slice(path ? path.length + 1 : 0).includes('/'));
  if (!children.length) return notFound();
  return { status: 200, body: children.map((e) => (e.type === 'blob' ? fileJson(e.path, model.docs.get(e.path)) : { type: 'dir', name: e.path.split('/').at(-1), path: e.path, sha: e.sha })) };
}

function graphql(req: FakeRequest, _p: string[], { model, urls }: RouteContext): FakeResponse {
  const { query, variables = {} } = (req.body ?? {}) as { query?: string; variables?: Record<string, unknown> };
  if (typeof query !== 'string') return { status: 400, body: { message: 'Problems parsing JSON' } };
  const owner = String(variables.owner ?? '');
  const name = String(variables.name ?? variables.repo ?? '');
  if (`${owner}/${name}`.toLowerCase() !== model.fullName.toLowerCase()) {
    return { status: 200, body: { data: { repository: null }, errors: [{ type: 'NOT_FOUND', path: ['repository'], message: `Could not resolve to a Repository with the name '${owner}/${name}'.` }] } };
  }
  const single = /discussion\s*\(\s*number:/.test(query);
  if (single) {
    const d = model.discussions.find((x) => x.number === Number(variables.number));
    return { status: 200, body: { data: { repository: { discussion: d ? graphqlDiscussion(d, urls) : null } } } };
  }
  if (!/discussions\s*\(/.test(query)) return { status: 200, body: { errors: [{ message: 'fake GitHub answers only discussion queries' }] } };
  const order = /orderBy:\s*\{\s*field:\s*(\w+)\s*,\s*direction:\s*(\w+)/.exec(query);
  const field = order?.[1] ?? 'UPDATED_AT';
  const dir = order?.[2] === 'ASC' ? 'asc' : 'desc';
  const sorted = sortBy(model.discussions, (d) => timeOf(field === 'CREATED_AT' ? d.created_at : d.updated_at), (d) => d.number, dir);
  const first = Math.min(Number(variables.first) || 10, 100);
  const after = typeof variables.after === 'string' ? Number(Buffer.from(variables.after, 'base64').toString().split(':').at(-1)) + 1 : 0;
  const slice = sorted.slice(after, after + first);
  const cursorAt = (i: number) => Buffer.from(`cursor:v2:${i}`).toString('base64');
  return {
    status: 200,
    body: {
      data: {
        repository: {
          discussions: {
            totalCount: sorted.length,
            pageInfo: { hasNextPage: after + first < sorted.length, endCursor: slice.length ? cursorAt(after + slice.length - 1) : null },
            nodes: slice.map((d) => graphqlDiscussion(d, urls)),
          },
        },
      },
    },
  };
}

function searchIssues(req: FakeRequest, _p: string[], { model, urls }: RouteContext): FakeResponse {
  const tokens = (req.query.get('q') ?? '').split(/\s+/).filter(Boolean);
  const qualifier = (k: string) => tokens.filter((t) => t.startsWith(`${k}:`)).map((t) => t.slice(k.length + 1).toLowerCase());
  const repos = qualifier('repo');
  if (repos.length && !repos.includes(model.fullName.toLowerCase())) return { status: 200, body: { total_count: 0, incomplete_results: false, items: [] } };
  const kinds = [...qualifier('is'), ...qualifier('type')];
  const states = [...qualifier('state'), ...kinds.filter((k) => k === 'open' || k === 'closed')];
  const words = tokens.filter((t) => !t.includes(':')).map((t) => t.toLowerCase());
  const matches = (title: string, body: string | null, state: string) =>
    (!states.length || states.includes(state)) && words.every((w) => `${title}\n${body ?? ''}`.toLowerCase().includes(w));
  const hits = [
    ...(kinds.some((k) => k === 'pr') ? [] : [...model.issues.values()].filter((i) => matches(i.title, i.body, i.state)).map((i) => ({ n: i.number, t: i.updated_at, json: restIssue(i, urls) }))),
    ...(kinds.some((k) => k === 'issue') ? [] : [...model.pulls.values()].filter((p) => matches(p.title, p.body, p.state)).map((p) => ({ n: p.number, t: pullUpdatedAt(p), json: restPullAsIssue(p, urls) }))),
  ];
  const sorted = sortBy(hits, (h) => timeOf(h.t), (h) => h.n, req.query.get('order') === 'asc' ? 'asc' : 'desc');
  const page = paginate(req, sorted.map((h) => ({ ...h.json, score: 1 })));
  return { ...page, body: { total_count: sorted.length, incomplete_results: false, items: page.body } };
}

export const contentRoutes: Route[] = [
  { method: 'GET', name: 'GET /repos/:o/:r/git/trees/:ref', pattern: /^\/repos\/([^/]+)\/([^/]+)\/git\/trees\/(.+)$/, handle: getTree },
  { method: 'GET', name: 'GET /repos/:o/:r/contents/:path', pattern: /^\/repos\/([^/]+)\/([^/]+)\/contents\/?(.*)$/, handle: getContents },
  { method: 'POST', name: 'POST /graphql', pattern: /^\/graphql$/, handle: graphql },
  { method: 'GET', name: 'GET /search/issues', pattern: /^\/search\/issues$/, handle: searchIssues },
];
