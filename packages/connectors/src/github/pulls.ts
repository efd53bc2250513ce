/** A pull request with its changed files, commits and reviews: a bounded number of extra requests. */
import type { GitHubClient } from './client.js';
import type { RepoRef } from './pages.js';
import { collectPages } from './pages.js';

/** Pages of 100 read per sub-list: 300 files (the export's cap too) and 300 commits at most. */
const MAX_SUB_PAGES = 3;

interface PullFile { filename: string; status?: string }
interface PullCommit { sha: string }
interface PullReview { user: { login: string } | null; state?: string; submitted_at?: string | null }

/**
 * Adds `files`, `files_total`, `files_truncated`, `commit_shas` and `reviews` (the export shape) to a
 * REST pull request: 3 requests, 3 to 7 when a list runs over a page, plus the detail when files overflow.
 */
export async function enrichPull(octokit: GitHubClient, where: RepoRef, pull: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const params = { ...where, pull_number: pull.number as number };
  const [files, commits, reviews] = await Promise.all([
    collectPages<PullFile>(octokit, 'GET /repos/{owner}/{repo}/pulls/{pull_number}/files', params, MAX_SUB_PAGES, signal),
    collectPages<PullCommit>(octokit, 'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits', params, MAX_SUB_PAGES, signal),
    collectPages<PullReview>(octokit, 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', params, 1, signal),
  ]);
  let filesTotal = files.items.length;
  if (files.truncated) {
    const detail = typeof pull.changed_files === 'number' ? pull : (await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...params, request: { signal } })).data;
    filesTotal = Math.max((detail as { changed_files?: number }).changed_files ?? 0, filesTotal);
  }
  return {
    ...pull,
    files: files.items.map((f) => ({ filename: f.filename, status: f.status })),
    files_total: filesTotal,
    files_truncated: files.truncated,
    commit_shas: commits.items.map((c) => c.sha),
    reviews: reviews.items.map((r) => ({ user: r.user, state: r.state, submitted_at: r.submitted_at })),
  };
}
