/** Page-number walking helpers shared by the REST streams. */
import { z } from 'zod';
import type { GitHubClient } from './client.js';

/** Cursor of a page-number walk: the next page to fetch and the `since` the walk started with. */
export const PageCursor = z.object({
  page: z.number().int().min(1),
  since: z.string().optional(),
  /** Commit the commits walk is pinned to, so pushes during a walk do not shift its pages. */
  sha: z.string().optional(),
});
export type PageCursor = z.infer<typeof PageCursor>;

export const startCursor = (since: string | undefined): PageCursor => ({ page: 1, ...(since ? { since } : {}) });

const relPage = (link: string | undefined, rel: string): number | null => {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]+)>;\s*rel="([^"]+)"/.exec(part.trim());
    if (m?.[2] === rel && m[1]) {
      const page = new URL(m[1]).searchParams.get('page');
      return page ? Number(page) : null;
    }
  }
  return null;
};
export const hasNext = (link: string | undefined): boolean => relPage(link, 'next') !== null;
export const lastPage = (link: string | undefined): number | null => relPage(link, 'last');

export interface RepoRef { owner: string; repo: string }

/**
 * Reads up to `maxPages` pages of a list route; `truncated` says more pages remained.
 * Keeps the extra requests a single pull request costs bounded.
 */
export async function collectPages<T>(octokit: GitHubClient, route: string, params: Record<string, unknown>, maxPages: number, signal?: AbortSignal): Promise<{ items: T[]; truncated: boolean }> {
  const items: T[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const res = await octokit.request(route, { ...params, per_page: 100, page, request: { signal } });
    items.push(...(res.data as T[]));
    if (!hasNext(res.headers.link)) return { items, truncated: false };
  }
  return { items, truncated: true };
}

/** Runs `fn` over `list` with at most `limit` calls in flight, keeping order. */
export async function mapLimit<T, R>(list: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      out[i] = await fn(list[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, list.length) }, worker));
  return out;
}

export const atOrAfter = (since: string | undefined) => {
  const ms = since ? Date.parse(since) : Number.NaN;
  if (since && Number.isNaN(ms)) throw new Error(`invalid since: ${since}`);
  return (iso: string | null | undefined): boolean => Number.isNaN(ms) || (!!iso && Date.parse(iso) >= ms);
};
