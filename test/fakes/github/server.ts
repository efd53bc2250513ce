/**
 * A small real HTTP server that behaves like api.github.com for one repository: token auth,
 * page-number pagination with Link headers, ETags and 304s, rate-limit headers and injected faults.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentRoutes } from './contentRoutes.js';
import type { FakeDoc } from './model.js';
import { buildRepoModel } from './model.js';
import type { FakeRequest, FakeResponse } from './paginate.js';
import { urlsFor } from './rest.js';
import type { Route } from './routes.js';
import { restRoutes } from './routes.js';
import { listenOnLoopback } from '../listen.js';

export interface FakeGitHubOptions {
  /** `owner/name` of the one repository served. */
  repo: string;
  /** corpus.json-shaped objects (`type`: pull_request, commit, issue, issue_comment, discussion). */
  items: readonly unknown[];
  /** Markdown (or other) files of the default branch. */
  docs?: readonly FakeDoc[];
  /** Token the client must send as `token X` or `Bearer X`. */
  token: string;
  defaultBranch?: string;
  /**
   * Primary rate limit: after `limit` counted requests (304s are free) the budget is spent and every
   * request answers `status` with `x-ratelimit-remaining: 0` until `resetMs` later (default 1 s), then it refills.
   */
  rateLimit?: { limit: number; resetMs?: number; status?: 403 | 429 };
  /** Every `every`-th request is refused as a secondary rate limit with `retry-after`. */
  secondaryLimit?: { every: number; retryAfterSeconds?: number; status?: 403 | 429 };
  /** From request number `every` on, `length` consecutive requests out of each `every` fail with `status` (`count` bursts at most). */
  failBursts?: { every: number; length: number; status?: 500 | 502 | 503; count?: number };
  /** Every `every`-th request is held open without an answer for `ms` (default: until the server closes), as a provider that hangs. */
  hangs?: { every: number; ms?: number };
  /** Every `every`-th successful JSON answer is cut in half (status 200, invalid JSON), as a connection dropped mid-body. */
  truncate?: { every: number };
}

export interface FakeGitHubState {
  requests: number;
  byRoute: Record<string, number>;
  byStatus: Record<number, number>;
  notModified: number;
  rateLimited: number;
  secondaryLimited: number;
  failed: number;
  unauthorized: number;
  /** Requests held open without an answer (`hangs`). */
  hung: number;
  /** Held requests whose client closed the connection (the caller aborted), as opposed to the fake dropping them. */
  abandoned: number;
  /** 200 answers whose JSON body was cut short (`truncate`). */
  truncated: number;
  /** Every request in order: method, path with query, status. */
  log: { method: string; path: string; status: number }[];
}

export interface FakeGitHub {
  /** API base URL, e.g. `http://127.0.0.1:41234` (GitHub Enterprise style `${url}/api/v3` works too). */
  url: string;
  state: FakeGitHubState;
  close(): Promise<void>;
}

const ROUTES: Route[] = [...restRoutes, ...contentRoutes];

export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const model = buildRepoModel(options.repo, options.items, options.docs ?? [], options.defaultBranch ?? 'main');
  const state: FakeGitHubState = { requests: 0, byRoute: {}, byStatus: {}, notModified: 0, rateLimited: 0, secondaryLimited: 0, failed: 0, unauthorized: 0, hung: 0, abandoned: 0, truncated: 0, log: [] };
  const held = new Set<ServerResponse>();
  const dropped = new WeakSet<ServerResponse>();
  const drop = (out: ServerResponse) => {
    dropped.add(out);
    out.destroy();
  };
  let truncateCount = 0;
  const limit = options.rateLimit?.limit ?? 5000;
  const resetMs = options.rateLimit?.resetMs ?? 1000;
  const budget: { used: number; resetAt: number | null } = { used: 0, resetAt: null };
  let secondaryCount = 0;

  const rateHeaders = (): Record<string, string> => {
    if (budget.resetAt !== null && Date.now() >= budget.resetAt) Object.assign(budget, { used: 0, resetAt: null });
    const reset = budget.resetAt ?? Date.now() + 3_600_000;
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(limit - budget.used, 0)),
      'x-ratelimit-used': String(budget.used),
      'x-ratelimit-reset': String(Math.ceil(reset / 1000)),
      'x-ratelimit-resource': 'core',
    };
  };
  const spend = () => {
    if (++budget.used >= limit && budget.resetAt === null) budget.resetAt = Date.now() + resetMs;
  };

  const respond = (req: FakeRequest, n: number): FakeResponse => {
    const auth = String(req.headers.authorization ?? '');
    if (auth !== `token ${options.token}` && auth !== `Bearer ${options.token}`) {
      state.unauthorized++;
      return { status: 401, body: { message: auth ? 'Bad credentials' : 'Requires authentication', documentation_url: 'https://docs.github.com/rest', status: '401' } };
    }
    const bursts = options.failBursts;
    if (bursts && n >= bursts.every && (n - bursts.every) % bursts.every < bursts.length && Math.floor(n / bursts.every) <= (bursts.count ?? Infinity)) {
      state.failed++;
      const status = bursts.status ?? 502;
      return { status, body: { message: status === 503 ? 'Service Unavailable' : 'Server Error' } };
    }
    if (req.path === '/rate_limit') {
      const h = rateHeaders();
      const core = { limit, remaining: Number(h['x-ratelimit-remaining']), reset: Number(h['x-ratelimit-reset']), used: budget.used, resource: 'core' };
      return { status: 200, body: { resources: { core, graphql: { ...core, resource: 'graphql' }, search: { limit: 30, remaining: 30, reset: core.reset, used: 0, resource: 'search' } }, rate: core } };
    }
    const headers = rateHeaders();
    if (budget.used >= limit) {
      state.rateLimited++;
      return { status: options.rateLimit?.status ?? 403, headers, body: { message: `API rate limit exceeded for user ID 1.`, documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api', status: String(options.rateLimit?.status ?? 403) } };
    }
    const secondary = options.secondaryLimit;
    if (secondary && ++secondaryCount % secondary.every === 0) {
      state.secondaryLimited++;
      return {
        status: secondary.status ?? 403,
        headers: { ...headers, 'retry-after': String(secondary.retryAfterSeconds ?? 1) },
        body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits' },
      };
    }
    const match = findRoute(req);
    if (!match) return { status: 404, headers, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' } };
    const res = match.route.handle(req, match.params, { model, urls: urlsFor(model, req.apiBase) });
    const etag = res.status === 200 && req.method === 'GET' ? `W/"${createHash('sha1').update(JSON.stringify(res.body)).digest('hex')}"` : undefined;
    const conditional = String(req.headers['if-none-match'] ?? '').split(',').map((s) => s.trim());
    if (etag && conditional.includes(etag)) return { status: 304, headers: { ...res.headers, ...rateHeaders(), etag } };
    spend();
    return { ...res, headers: { ...res.headers, ...rateHeaders(), ...(etag ? { etag } : {}) } };
  };

  const findRoute = (req: FakeRequest) => {
    for (const route of ROUTES) {
      if (route.method !== req.method) continue;
      const m = route.pattern.exec(req.path);
      if (!m) continue;
      const params = m.slice(1).map((p) => p ?? '');
      if (req.path.startsWith('/repos/') && `${params[0]}/${params[1]}`.toLowerCase() !== model.fullName.toLowerCase()) return null;
      return { route, params };
    }
    return null;
  };

  const server = createServer((incoming: IncomingMessage, out: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (c: Buffer) => chunks.push(c));
    incoming.on('end', () => {
      const n = ++state.requests;
      if (options.hangs && n % options.hangs.every === 0) {
        state.hung++;
        state.log.push({ method: incoming.method ?? 'GET', path: incoming.url ?? '/', status: 0 });
        held.add(out);
        out.once('close', () => {
          held.delete(out);
          if (!dropped.has(out)) state.abandoned++;
        });
        if (options.hangs.ms !== undefined) setTimeout(() => drop(out), options.hangs.ms).unref();
        return;
      }
      const url = new URL(incoming.url ?? '/', `http://${incoming.headers.host ?? '127.0.0.1'}`);
      // GitHub Enterprise Server serves REST under /api/v3 and GraphQL at /api/graphql.
      const enterprise = url.pathname.startsWith('/api/v3/') || url.pathname === '/api/graphql';
      const path = url.pathname === '/api/graphql' ? '/graphql' : (enterprise ? url.pathname.slice('/api/v3'.length) : url.pathname) || '/';
      const req: FakeRequest = {
        method: incoming.method ?? 'GET', path, query: url.searchParams, headers: incoming.headers, url,
        apiBase: `${url.origin}${enterprise ? '/api/v3' : ''}`, body: parseBody(Buffer.concat(chunks)),
      };
      const route = findRoute(req)?.route.name ?? (path === '/rate_limit' ? 'GET /rate_limit' : `unmatched ${req.method} ${path}`);
      state.byRoute[route] = (state.byRoute[route] ?? 0) + 1;
      const res = respond(req, n);
      state.byStatus[res.status] = (state.byStatus[res.status] ?? 0) + 1;
      if (res.status === 304) state.notModified++;
      state.log.push({ method: req.method, path: `${path}${url.search}`, status: res.status });
      let body = res.status === 304 || res.body === undefined ? '' : JSON.stringify(res.body);
      if (options.truncate && res.status === 200 && body.length > 1 && ++truncateCount % options.truncate.every === 0) {
        state.truncated++;
        body = body.slice(0, Math.floor(body.length / 2));
      }
      out.writeHead(res.status, {
        ...(body ? { 'content-type': 'application/json; charset=utf-8' } : {}),
        'x-github-request-id': `FAKE:${n}`,
        'x-github-api-version-selected': '2022-11-28',
        ...res.headers,
      });
      out.end(body);
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return {
    url: `${origin}`,
    state,
    close: async () => {
      for (const out of held) drop(out);
      await close();
    },
  };
}

function parseBody(raw: Buffer): unknown {
  if (!raw.length) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
