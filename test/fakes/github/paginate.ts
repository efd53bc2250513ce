/** Page-number pagination with RFC 5988 `Link` headers, as api.github.com does it. */

export interface FakeRequest {
  method: string;
  /** Path without a GitHub Enterprise `/api/v3` prefix. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The full URL the client asked for (used to build `Link` headers). */
  url: URL;
  /** API base as the client sees it, e.g. `http://127.0.0.1:1234` or `.../api/v3`. */
  apiBase: string;
}

export interface FakeResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function paginate(req: FakeRequest, list: readonly unknown[], opts: { defaultPerPage?: number; maxPerPage?: number } = {}): FakeResponse {
  const perPage = Math.min(Math.max(Number(req.query.get('per_page')) || (opts.defaultPerPage ?? 30), 1), opts.maxPerPage ?? 100);
  const page = Math.max(Math.floor(Number(req.query.get('page')) || 1), 1);
  const lastPage = Math.max(Math.ceil(list.length / perPage), 1);
  const body = list.slice((page - 1) * perPage, page * perPage);
  const link = (n: number, rel: string) => {
    const u = new URL(req.url);
    u.searchParams.set('page', String(n));
    if (!u.searchParams.has('per_page')) u.searchParams.set('per_page', String(perPage));
    return `<${u.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(Math.min(page - 1, lastPage), 'prev'));
  if (page < lastPage) links.push(link(page + 1, 'next'), link(lastPage, 'last'));
  if (page > 1) links.push(link(1, 'first'));
  return { status: 200, body, headers: links.length ? { link: links.join(', ') } : {} };
}

/** Sorts by a timestamp, breaking ties by number so pages are stable. */
export function sortBy<T>(list: readonly T[], key: (t: T) => number, tie: (t: T) => number, direction: 'asc' | 'desc'): T[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...list].sort((a, b) => sign * (key(a) - key(b) || tie(a) - tie(b)));
}

export const notFound = (): FakeResponse => ({
  status: 404,
  body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' },
});

export const unprocessable = (message: string): FakeResponse => ({
  status: 422,
  body: { message, documentation_url: 'https://docs.github.com/rest', status: '422' },
});
