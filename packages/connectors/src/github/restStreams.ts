/** Pull requests, issues, issue comments and commits: page-number walks, newest change first. */
import type { ConnectorStream, FetchPageOptions, StreamCursor, SyncPage } from '../types.js';
import type { GitHubClient } from './client.js';
import { normalizeGitHubObject } from './normalize.js';
import type { PageCursor, RepoRef } from './pages.js';
import { PageCursor as PageCursorSchema, atOrAfter, hasNext, lastPage, mapLimit, startCursor } from './pages.js';
import { enrichPull } from './pulls.js';

export interface StreamContext {
  octokit: GitHubClient;
  where: RepoRef;
  /** `owner/repo` as configured. */
  repo: string;
  perPage: number;
  /** Requests in flight while enriching one page (PR files/commits/reviews, commit details). */
  concurrency: number;
}

type Row = Record<string, unknown>;

const cursorOf = (cursor: StreamCursor | null, options: FetchPageOptions | undefined): PageCursor =>
  cursor ? PageCursorSchema.parse(cursor) : startCursor(options?.since);

const nextOf = (c: PageCursor, more: boolean): PageCursor | null => (more ? { ...c, page: c.page + 1 } : null);

const totalOf = (link: string | undefined, c: PageCursor, perPage: number, rows: number): number | undefined => {
  if (c.since) return undefined;
  const last = lastPage(link);
  return last === null ? (c.page - 1) * perPage + rows : last * perPage;
};

/**
 * Walks newest-updated first: an object updated during a walk moves to page 1 and can only be seen
 * twice (the indexer is idempotent), never skipped; the next incremental sync picks it up. A page
 * that reaches objects older than `since` ends the walk.
 */
export function pullRequestStream(ctx: StreamContext): ConnectorStream {
  return {
    name: 'pull_requests',
    async fetchPage(cursor, options): Promise<SyncPage> {
      const c = cursorOf(cursor, options);
      const signal = options?.signal;
      const res = await ctx.octokit.request('GET /repos/{owner}/{repo}/pulls', {
        ...ctx.where, state: 'all', sort: 'updated', direction: 'desc', per_page: ctx.perPage, page: c.page, request: { signal },
      });
      const rows = res.data as unknown as Row[];
      const recent = atOrAfter(c.since);
      const fresh = rows.filter((p) => recent(p.updated_at as string));
      const enriched = await mapLimit(fresh, ctx.concurrency, (p) => enrichPull(ctx.octokit, ctx.where, p, signal));
      const total = totalOf(res.headers.link, c, ctx.perPage, rows.length);
      return {
        events: enriched.map((p) => normalizeGitHubObject(p, ctx.repo)),
        next: nextOf(c, hasNext(res.headers.link) && fresh.length === rows.length),
        ...(total !== undefined ? { totalHint: total } : {}),
      };
    },
  };
}

/** Issues only: GitHub lists pull requests here too (with a `pull_request` key); they are skipped. */
export function issueStream(ctx: StreamContext): ConnectorStream {
  return {
    name: 'issues',
    async fetchPage(cursor, options) {
      const c = cursorOf(cursor, options);
      const res = await ctx.octokit.request('GET /repos/{owner}/{repo}/issues', {
        ...ctx.where, state: 'all', sort: 'updated', direction: 'desc', per_page: ctx.perPage, page: c.page,
        ...(c.since ? { since: c.since } : {}), request: { signal: options?.signal },
      });
      const rows = res.data as unknown as Row[];
      const recent = atOrAfter(c.since);
      const issues = rows.filter((i) => !i.pull_request && recent(i.updated_at as string));
      return { events: issues.map((i) => normalizeGitHubObject(i, ctx.repo)), next: nextOf(c, hasNext(res.headers.link)) };
    },
  };
}

/** Conversation comments on issues and pull requests. */
export function issueCommentStream(ctx: StreamContext): ConnectorStream {
  return {
    name: 'issue_comments',
    async fetchPage(cursor, options) {
      const c = cursorOf(cursor, options);
      const res = await ctx.octokit.request('GET /repos/{owner}/{repo}/issues/comments', {
        ...ctx.where, sort: 'updated', direction: 'desc', per_page: ctx.perPage, page: c.page,
        ...(c.since ? { since: c.since } : {}), request: { signal: options?.signal },
      });
      const rows = res.data as unknown as Row[];
      const recent = atOrAfter(c.since);
      return { events: rows.filter((r) => recent(r.updated_at as string)).map((r) => normalizeGitHubObject(r, ctx.repo)), next: nextOf(c, hasNext(res.headers.link)) };
    },
  };
}

/**
 * Commits of the default branch, newest first, each fetched once more for its changed files. The
 * walk is pinned to the head it started from, so pushes during the walk do not shift its pages.
 */
export function commitStream(ctx: StreamContext): ConnectorStream {
  return {
    name: 'commits',
    async fetchPage(cursor, options) {
      const c = cursorOf(cursor, options);
      const signal = options?.signal;
      const res = await ctx.octokit.request('GET /repos/{owner}/{repo}/commits', {
        ...ctx.where, per_page: ctx.perPage, page: c.page, ...(c.sha ? { sha: c.sha } : {}),
        ...(c.since ? { since: c.since } : {}), request: { signal },
      });
      const rows = res.data as unknown as Row[];
      const pinned: PageCursor = c.sha || !rows[0] ? c : { ...c, sha: rows[0].sha as string };
      const detailed = await mapLimit(rows, ctx.concurrency, async (row) =>
        (await ctx.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}', { ...ctx.where, ref: row.sha as string, request: { signal } })).data as unknown as Row);
      const total = totalOf(res.headers.link, c, ctx.perPage, rows.length);
      return {
        events: detailed.map((d) => normalizeGitHubObject(d, ctx.repo)),
        next: nextOf(pinned, hasNext(res.headers.link)),
        ...(total !== undefined ? { totalHint: total } : {}),
      };
    },
  };
}
