/** The GitHub connector: resumable streams, fetch by URL, proxy actions for one repository. */
import type { SourceEvent } from '@engram/contracts';
import type { Connector, SyncObserver } from '../types.js';
import { createGitHubClient } from './client.js';
import { discussionStream, fetchDiscussion } from './discussions.js';
import { docsStream } from './docs.js';
import { normalizeGitHubObject } from './normalize.js';
import type { RepoRef } from './pages.js';
import { githubActions } from './proxy.js';
import { enrichPull } from './pulls.js';
import { commitStream, issueCommentStream, issueStream, pullRequestStream } from './restStreams.js';
import { DEFAULT_API_URL, parseGitHubWebUrl, webUrlFor } from './urls.js';

export interface GitHubConnectorOptions {
  /** `owner/name`. */
  repo: string;
  token: string;
  /** REST base; GitHub Enterprise Server: `https://<host>/api/v3`. Default `https://api.github.com`. */
  baseUrl?: string;
  /** Web base that html_url values use; derived from `baseUrl` when omitted. */
  webUrl?: string;
  observer?: SyncObserver;
  /** Objects per list page (1-100, default 100). */
  perPage?: number;
  /** Retries of a 5xx or network failure (default 3). */
  retries?: number;
  /** Backoff unit between retries: the n-th waits n² × this (default 1000 ms). */
  retryBaseMs?: number;
  /** Requests in flight while enriching a page (default 4). */
  concurrency?: number;
  /** GET responses kept for ETag revalidation (default 200, 0 disables). */
  etagCacheSize?: number;
  /** Deadline of one HTTP attempt (default 30 s); a hung attempt is retried. */
  requestTimeoutMs?: number;
}

export const GITHUB_STREAMS = ['pull_requests', 'issues', 'issue_comments', 'commits', 'discussions', 'docs'] as const;

export function createGitHubConnector(options: GitHubConnectorOptions): Connector {
  const m = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(options.repo);
  if (!m?.[1] || !m[2]) throw new Error(`GitHub repo must be "owner/name", got "${options.repo}"`);
  const where: RepoRef = { owner: m[1], repo: m[2] };
  const repo = options.repo;
  const baseUrl = options.baseUrl ?? DEFAULT_API_URL;
  const webUrl = (options.webUrl ?? webUrlFor(baseUrl)).replace(/\/+$/, '');
  const perPage = Math.min(Math.max(options.perPage ?? 100, 1), 100);
  const concurrency = Math.max(options.concurrency ?? 4, 1);
  const octokit = createGitHubClient({
    token: options.token, baseUrl,
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    ...(options.retryBaseMs !== undefined ? { retryBaseMs: options.retryBaseMs } : {}),
    ...(options.etagCacheSize !== undefined ? { etagCacheSize: options.etagCacheSize } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  });
  const ctx = { octokit, where, repo, perPage, concurrency };
  const streams = [
    pullRequestStream(ctx),
    issueStream(ctx),
    issueCommentStream(ctx),
    commitStream(ctx),
    discussionStream(octokit, where, repo, perPage),
    docsStream({ octokit, where, repo, webUrl, pageSize: Math.min(perPage, 20), concurrency }),
  ];

  const notFoundAsNull = async (load: () => Promise<SourceEvent | null>): Promise<SourceEvent | null> => {
    try {
      return await load();
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 404 || status === 422) return null;
      throw error;
    }
  };
  const fetchPull = async (n: number, signal?: AbortSignal) => {
    const res = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...where, pull_number: n, request: { signal } });
    return normalizeGitHubObject(await enrichPull(octokit, where, res.data as unknown as Record<string, unknown>, signal), repo);
  };

  return {
    provider: 'github',
    streams: () => streams,
    fetchByUrl(url, signal) {
      const target = parseGitHubWebUrl(url, webUrl, repo);
      if (!target) return Promise.resolve(null);
      return notFoundAsNull(async () => {
        switch (target.kind) {
          case 'pull':
            return fetchPull(target.number, signal);
          case 'issue': {
            const res = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { ...where, issue_number: target.number, request: { signal } });
            // GitHub serves /issues/N of a pull request too (and redirects the page to /pull/N).
            return res.data.pull_request ? fetchPull(target.number, signal) : normalizeGitHubObject(res.data, repo);
          }
          case 'commit': {
            const res = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}', { ...where, ref: target.sha, request: { signal } });
            return normalizeGitHubObject(res.data, repo);
          }
          case 'discussion':
            return fetchDiscussion(octokit, where, repo, target.number, signal);
        }
      });
    },
    resources: () => [{ name: `${where.owner}/${where.repo}`, params: { owner: where.owner, repo: where.repo }, syncing: streams.map((s) => s.name) }],
    actions: () => githubActions(octokit, where),
  };
}
