/** Proxy actions: provider calls made with the connection's stored token, answered without credentials. */
import { z } from 'zod';
import { StorableString } from '@engram/contracts';
import { cappedFetch, DEFAULT_PROXY_MAX_RESPONSE_BYTES } from '../proxy/limits.js';
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

/** Every string parameter: storable, bounded. */
const text = (max = 256) => StorableString().min(1).max(max);
const where = {
  owner: text(100).regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/, 'a GitHub owner name').describe('repository owner'),
  repo: text(100).regex(/^[A-Za-z0-9._-]+$/, 'a GitHub repository name').refine((r) => r !== '.' && r !== '..', 'a GitHub repository name').describe('repository name'),
};
/** A git ref or sha as a path segment: no `..`, no empty or dot segments, nothing a URL would normalise away. */
const gitRef = text(255)
  .regex(/^[A-Za-z0-9._/-]+$/, 'a commit sha, branch or tag')
  .refine((r) => !r.split('/').some((seg) => seg === '' || seg === '.' || seg === '..') && !r.includes('..'), 'a commit sha, branch or tag (no "." or ".." segments)');
/**
 * Search qualifiers that would widen the search beyond the connection's repository, or into private
 * visibility classes: refused, since the query runs with the connection's token.
 */
const SCOPE_QUALIFIER = /(?:^|[\s("])-?(repo|org|user|owner|is|in|fork|archived)\s*:\s*("[^"]*"|\S*)/gi;
const ALLOWED_IS = new Set(['issue', 'pr', 'open', 'closed', 'merged', 'unmerged', 'draft', 'locked', 'unlocked', 'blocked', 'blocking']);
export function scopeEscapes(q: string): string[] {
  const bad: string[] = [];
  for (const m of q.matchAll(SCOPE_QUALIFIER)) {
    const name = m[1]!.toLowerCase();
    const value = (m[2] ?? '').replace(/"/g, '').toLowerCase();
    if (name === 'is' && ALLOWED_IS.has(value)) continue;
    if (name === 'in' && ['title', 'body', 'comments'].includes(value)) continue;
    bad.push(`${name}:${value}`);
  }
  return bad;
}
const paging = {
  per_page: z.number().int().min(1).max(100).optional().describe('results per page (max 100)'),
  page: z.number().int().min(1).optional().describe('page number, from 1'),
};
const state = z.enum(['open', 'closed', 'all']).optional().describe('open (default), closed or all');
const isoTime = z.string().datetime({ offset: true });

export function githubActions(octokit: GitHubClient, scope: RepoRef): ProxyAction[] {
  const call = async (route: string, params: Record<string, unknown>, signal?: AbortSignal, maxResponseBytes = DEFAULT_PROXY_MAX_RESPONSE_BYTES): Promise<ProxyResult> => {
    try {
      const res = await octokit.request(route, { ...params, request: { signal, fetch: cappedFetch(maxResponseBytes) } });
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
    run: async (input, signal, limits) => {
      const parsed = params.parse(input) as z.infer<S> & RepoRef;
      if (`${parsed.owner}/${parsed.repo}`.toLowerCase() !== `${scope.owner}/${scope.repo}`.toLowerCase()) {
        return { status: 403, data: { message: `this connection only proxies ${scope.owner}/${scope.repo}` }, headers: {} };
      }
      return call(route, shape ? shape(parsed) : parsed, signal, limits?.maxResponseBytes);
    },
  });
  return [
    action('list-pull-requests', 'List pull requests of a repository, filtered by state and sorted.', z.object({
      ...where, state, ...paging,
      sort: z.enum(['created', 'updated', 'popularity', 'long-running']).optional(),
      direction: z.enum(['asc', 'desc']).optional(),
      head: text().optional().describe('filter by head "user:branch"'),
      base: text().optional().describe('filter by base branch'),
    }), 'GET /repos/{owner}/{repo}/pulls'),
    action('get-pull-request', 'Get one pull request by number (with merge state and change counts).', z.object({
      ...where, pull_number: z.number().int().min(1),
    }), 'GET /repos/{owner}/{repo}/pulls/{pull_number}'),
    action('list-issues', 'List issues of a repository (GitHub includes pull requests, marked with a pull_request key).', z.object({
      ...where, state, ...paging,
      since: isoTime.optional().describe('only issues updated at or after this time'),
      labels: text(1000).optional().describe('comma-separated label names'),
      sort: z.enum(['created', 'updated', 'comments']).optional(),
      direction: z.enum(['asc', 'desc']).optional(),
    }), 'GET /repos/{owner}/{repo}/issues'),
    action('get-issue', 'Get one issue (or pull request, as an issue) by number.', z.object({
      ...where, issue_number: z.number().int().min(1),
    }), 'GET /repos/{owner}/{repo}/issues/{issue_number}'),
    action('list-commits', 'List commits of a branch, newest first, optionally touching a path or in a time range.', z.object({
      ...where, ...paging,
      sha: gitRef.optional().describe('branch or commit sha to start from'),
      path: text(1000).optional().describe('only commits touching this path'),
      author: text().optional().describe('GitHub login or e-mail'),
      since: isoTime.optional(),
      until: isoTime.optional(),
    }), 'GET /repos/{owner}/{repo}/commits'),
    action('get-commit', 'Get one commit with its changed files.', z.object({
      ...where, ref: gitRef.describe('commit sha, branch or tag'),
    }), 'GET /repos/{owner}/{repo}/commits/{ref}'),
    action('search-issues', 'Search issues and pull requests of the repository with GitHub search syntax.', z.object({
      ...where, ...paging,
      q: text(256)
        .superRefine((q, ctx) => {
          const bad = scopeEscapes(q);
          if (bad.length) ctx.addIssue({ code: 'custom', message: `qualifiers that leave the connection's repository are not allowed: ${bad.join(', ')}` });
        })
        .describe('search terms and qualifiers, e.g. "crash is:issue is:open"; repo:, org:, user: and visibility qualifiers are refused (the search is confined to the repository)'),
      sort: z.enum(['comments', 'reactions', 'created', 'updated']).optional(),
      order: z.enum(['asc', 'desc']).optional(),
    }), 'GET /search/issues', ({ owner, repo, q, ...rest }) => ({ ...rest, q: `${q} repo:${owner}/${repo}` })),
  ];
}
