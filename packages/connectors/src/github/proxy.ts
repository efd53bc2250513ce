/** Proxy actions: provider calls made with the connection's stored token, answered without credentials. */
import { z } from 'zod';
import type { ProxyAction, ProxyResult } from '../types.js';
import type { GitHubClient } from './client.js';
import type { RepoRef } from './pages.js';

const SAFE_HEADERS = /^(etag|link|content-type|x-ratelimit-[a-z-]+)$/;

/** Keeps only headers safe to hand to a caller: never authorization, cookies or request ids. */
export function safeHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined && value !== null && SAFE_HEADERS.test(name.toLowerCase())) out[name.toLowerCase()] = String(value);
  }
  return out;
}

const where = { owner: z.string().min(1).describe('repository owner'), repo: z.string().min(1).describe('repository name') };
const paging = {
  per_page: z.number().int().min(1).max(100).optional().describe('results per page (max 100)'),
  page: z.number().int().min(1).optional().describe('page number, from 1'),
};
const state = z.enum(['open', 'closed', 'all']).optional().describe('open (default), closed or all');
const isoTime = z.string().datetime({ offset: true });

export function githubActions(octokit: GitHubClient, scope: RepoRef): ProxyAction[] {
  const call = async (route: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<ProxyResult> => {
    try {
      const res = await octokit.request(route, { ...params, request: { signal } });
      return { status: res.status, data: res.data, headers: safeHeaders(res.headers) };
    } catch (error) {
      const failed = error as { status?: number; response?: { data?: unknown; headers?: Record<string, unknown> } };
      if (typeof failed.status !== 'number' || !failed.response) throw error;
      return { status: failed.status, data: failed.response.data ?? null, headers: safeHeaders(failed.response.headers) };
    }
  };
  const action = <S extends z.ZodObject>(name: string, description: string, params: S, route: string, shape?: (p: z.infer<S>) => Record<string, unknown>): ProxyAction<S> => ({
    action: `github.${name}`,
    description,
    params,
    run: async (input, signal) => {
      const parsed = params.parse(input) as z.infer<S> & RepoRef;
      if (`${parsed.owner}/${parsed.repo}`.toLowerCase() !== `${scope.owner}/${scope.repo}`.toLowerCase()) {
        return { status: 403, data: { message: `this connection only proxies ${scope.owner}/${scope.repo}` }, headers: {} };
      }
      return call(route, shape ? shape(parsed) : parsed, signal);
    },
  });
  return [
    action('list-pull-requests', 'List pull requests of a repository, filtered by state and sorted.', z.object({
      ...where, state, ...paging,
      sort: z.enum(['created', 'updated', 'popularity', 'long-running']).optional(),
      direction: z.enum(['asc', 'desc']).optional(),
      head: z.string().optional().describe('filter by head "user:branch"'),
      base: z.string().optional().describe('filter by base branch'),
    }), 'GET /repos/{owner}/{repo}/pulls'),
    action('get-pull-request', 'Get one pull request by number (with merge state and change counts).', z.object({
      ...where, pull_number: z.number().int().min(1),
    }), 'GET /repos/{owner}/{repo}/pulls/{pull_number}'),
    action('list-issues', 'List issues of a repository (GitHub includes pull requests, marked with a pull_request key).', z.object({
      ...where, state, ...paging,
      since: isoTime.optional().describe('only issues updated at or after this time'),
      labels: z.string().optional().describe('comma-separated label names'),
      sort: z.enum(['created', 'updated', 'comments']).optional(),
      direction: z.enum(['asc', 'desc']).optional(),
    }), 'GET /repos/{owner}/{repo}/issues'),
    action('get-issue', 'Get one issue (or pull request, as an issue) by number.', z.object({
      ...where, issue_number: z.number().int().min(1),
    }), 'GET /repos/{owner}/{repo}/issues/{issue_number}'),
    action('list-commits', 'List commits of a branch, newest first, optionally touching a path or in a time range.', z.object({
      ...where, ...paging,
      sha: z.string().optional().describe('branch or commit sha to start from'),
      path: z.string().optional().describe('only commits touching this path'),
      author: z.string().optional().describe('GitHub login or e-mail'),
      since: isoTime.optional(),
      until: isoTime.optional(),
    }), 'GET /repos/{owner}/{repo}/commits'),
    action('get-commit', 'Get one commit with its changed files.', z.object({
      ...where, ref: z.string().min(1).describe('commit sha, branch or tag'),
    }), 'GET /repos/{owner}/{repo}/commits/{ref}'),
    action('search-issues', 'Search issues and pull requests of the repository with GitHub search syntax.', z.object({
      ...where, ...paging,
      q: z.string().min(1).describe('search terms and qualifiers, e.g. "crash is:issue is:open"'),
      sort: z.enum(['comments', 'reactions', 'created', 'updated']).optional(),
      order: z.enum(['asc', 'desc']).optional(),
    }), 'GET /search/issues', ({ owner, repo, q, ...rest }) => ({ ...rest, q: `${q} repo:${owner}/${repo}` })),
  ];
}
