/**
 * Markdown files of the default branch as `document` events. A walk is pinned to the head commit it
 * started from (tree and contents are read at that sha), so its pages never shift. Each file costs
 * one request for its last commit (date, author; `since` skips unchanged files here) and one for content.
 */
import { z } from 'zod';
import type { SourceEvent } from '@engram/contracts';
import type { ConnectorStream } from '../types.js';
import type { GitHubClient } from './client.js';
import { externalIdOf, isoTime } from './normalize.js';
import type { RepoRef } from './pages.js';
import { atOrAfter, mapLimit } from './pages.js';

/** Every Markdown file of the default branch is a document, changelogs and blog posts included. */
export function isSyncedDoc(path: string): boolean {
  return /\.(md|mdx|markdown)$/i.test(path);
}

const DocsCursor = z.object({
  branch: z.string(),
  ref: z.string(),
  headDate: z.string(),
  offset: z.number().int().min(0),
  since: z.string().optional(),
});
type DocsCursor = z.infer<typeof DocsCursor>;

interface CommitRow { sha: string; commit: { author?: { name?: string; email?: string; date?: string } | null; committer?: { date?: string } | null }; author?: { login?: string } | null }

/** Title: the first `# heading`, else front matter `title:`, else the file name. */
export function documentTitle(path: string, content: string): string {
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(content)?.[1];
  const front = /^---\n[\s\S]*?^title:\s*["']?(.+?)["']?\s*$[\s\S]*?^---/m.exec(content)?.[1];
  return heading ?? front ?? path.split('/').at(-1) ?? path;
}

export interface DocsStreamContext { octokit: GitHubClient; where: RepoRef; repo: string; webUrl: string; pageSize: number; concurrency: number }

export function docsStream(ctx: DocsStreamContext): ConnectorStream {
  const { octokit, where } = ctx;
  const start = async (since: string | undefined, signal?: AbortSignal): Promise<DocsCursor> => {
    const repo = await octokit.request('GET /repos/{owner}/{repo}', { ...where, request: { signal } });
    const branch = repo.data.default_branch;
    const head = await octokit.request('GET /repos/{owner}/{repo}/commits', { ...where, sha: branch, per_page: 1, request: { signal } });
    const top = head.data[0] as unknown as CommitRow | undefined;
    if (!top) throw new Error(`${ctx.repo}: default branch ${branch} has no commits`);
    return { branch, ref: top.sha, headDate: top.commit.committer?.date ?? top.commit.author?.date ?? new Date(0).toISOString(), offset: 0, ...(since ? { since } : {}) };
  };
  return {
    name: 'docs',
    async fetchPage(cursor, options) {
      const signal = options?.signal;
      const c = cursor ? DocsCursor.parse(cursor) : await start(options?.since, signal);
      const tree = await octokit.request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', { ...where, tree_sha: c.ref, recursive: '1', request: { signal } });
      const paths = tree.data.tree.filter((e) => e.type === 'blob' && e.path && isSyncedDoc(e.path)).map((e) => ({ path: e.path as string, sha: e.sha as string }));
      paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const slice = paths.slice(c.offset, c.offset + ctx.pageSize);
      const recent = atOrAfter(c.since);
      const docs = await mapLimit(slice, ctx.concurrency, async (entry): Promise<SourceEvent | null> => {
        const history = await octokit.request('GET /repos/{owner}/{repo}/commits', { ...where, sha: c.ref, path: entry.path, per_page: 1, request: { signal } });
        const last = history.data[0] as unknown as CommitRow | undefined;
        const changedAt = last?.commit.committer?.date ?? last?.commit.author?.date ?? c.headDate;
        if (!recent(changedAt)) return null;
        const file = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...where, path: entry.path, ref: c.ref, request: { signal } });
        const data = file.data as { encoding?: string; content?: string };
        if (Array.isArray(file.data) || data.encoding !== 'base64' || data.content === undefined) return null;
        const content = Buffer.from(data.content, 'base64').toString('utf8');
        const login = last?.author?.login;
        const name = last?.commit.author?.name;
        return {
          source: 'github',
          type: 'document',
          externalId: externalIdOf(ctx.repo, 'document', entry.path),
          url: `${ctx.webUrl}/${ctx.repo}/blob/${encodeURIComponent(c.branch)}/${entry.path.split('/').map(encodeURIComponent).join('/')}`,
          title: documentTitle(entry.path, content),
          body: content,
          occurredAt: isoTime(changedAt),
          updatedAt: isoTime(changedAt),
          keys: [],
          refs: [],
          actors: login || name ? [{ role: 'author', provider: 'github', ...(login ? { login } : {}), ...(name ? { name } : {}) }] : [],
          labels: [],
          files: [entry.path],
          container: ctx.repo,
          metadata: { path: entry.path, blob_sha: entry.sha, branch: c.branch, ref: c.ref, ...(last ? { last_commit_sha: last.sha } : {}) },
        };
      });
      const end = c.offset + slice.length;
      return {
        events: docs.filter((d): d is SourceEvent => d !== null),
        next: end < paths.length ? { ...c, offset: end } : null,
        totalHint: paths.length,
      };
    },
  };
}
