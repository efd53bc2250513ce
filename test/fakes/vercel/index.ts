import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { vercelFixture, type FakeVercelDeployment, type FakeVercelEvent } from './fixture.js';
import { listenOnLoopback } from '../listen.js';

export { vercelFixture } from './fixture.js';
export type * from './fixture.js';

export interface FakeVercelOptions {
  /** Access token expected as `Authorization: Bearer <token>`. */
  token: string;
  deployments?: FakeVercelDeployment[];
  /** Build log lines by deployment uid. */
  events?: Record<string, FakeVercelEvent[]>;
  /** At most `limit` requests per `windowMs`; then 429 with `x-ratelimit-reset` (epoch seconds). */
  rateLimit?: { limit: number; windowMs: number };
  /** After `afterRequests` requests, the next `count` answer `status` (default 502). */
  failBursts?: Array<{ afterRequests: number; count: number; status?: number }>;
}

export interface FakeVercelState {
  deployments: FakeVercelDeployment[];
  events: Record<string, FakeVercelEvent[]>;
  requests: number;
  rateLimited: number;
  failed: number;
  /** `METHOD path?query` of every authenticated request. */
  log: string[];
}

export interface FakeVercel { url: string; close(): Promise<void>; state: FakeVercelState }

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};
const error = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  send(res, status, { error: { code, message } }, headers);

const listItem = (d: FakeVercelDeployment) => ({
  uid: d.uid, name: d.name, url: d.url, created: d.created, createdAt: d.created, buildingAt: d.buildingAt, ready: d.ready,
  state: d.state, readyState: d.state, type: 'LAMBDAS', source: 'git', target: d.target, projectId: d.projectId,
  creator: d.creator, meta: d.meta, inspectorUrl: d.inspectorUrl, aliasError: null,
  aliasAssigned: d.state === 'READY' ? d.ready : null, isRollbackCandidate: d.target === 'production' && d.state === 'READY',
});

const fullDeployment = (d: FakeVercelDeployment) => ({
  id: d.uid, name: d.name, url: d.url, createdAt: d.created, buildingAt: d.buildingAt, ready: d.ready,
  readyState: d.state, status: d.state, type: 'LAMBDAS', source: 'git', target: d.target, projectId: d.projectId,
  creator: { uid: d.creator.uid, username: d.creator.username }, meta: d.meta, inspectorUrl: d.inspectorUrl,
  alias: d.state === 'READY' && d.target === 'production' ? [`${d.name}.vercel.app`] : [],
  aliasAssigned: d.state === 'READY' ? d.ready : null, errorCode: d.errorCode ?? undefined, errorMessage: d.errorMessage ?? undefined,
  gitSource: { type: 'github', org: d.meta.githubCommitOrg, repo: d.meta.githubCommitRepo, ref: d.meta.githubCommitRef, sha: d.meta.githubCommitSha },
  regions: ['iad1'], plan: 'pro', public: false, version: 2,
});

/** Vercel's REST API on 127.0.0.1 for deployments and build events, with bearer auth, 429s and 5xx bursts. */
export async function startFakeVercel(options: FakeVercelOptions): Promise<FakeVercel> {
  const fixture = options.deployments ? undefined : vercelFixture();
  const state: FakeVercelState = {
    deployments: options.deployments ?? fixture!.deployments,
    events: options.events ?? fixture?.events ?? {},
    requests: 0, rateLimited: 0, failed: 0, log: [],
  };
  let window = { start: 0, count: 0 };
  const find = (idOrUrl: string) => state.deployments.find((d) => d.uid === idOrUrl || d.url === idOrUrl.replace(/^https?:\/\//, ''));

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      return send(res, 403, { error: { code: 'forbidden', message: 'Not authorized', invalidToken: true } });
    }
    state.requests += 1;
    state.log.push(`${req.method} ${url.pathname}${url.search}`);
    const burst = options.failBursts?.find((b) => state.requests > b.afterRequests && state.requests <= b.afterRequests + b.count);
    if (burst) {
      state.failed += 1;
      return error(res, burst.status ?? 502, 'internal_server_error', 'An unexpected internal error occurred');
    }
    let headers: Record<string, string> = {};
    if (options.rateLimit) {
      const { limit, windowMs } = options.rateLimit;
      const now = Date.now();
      if (now - window.start >= windowMs) window = { start: now, count: 0 };
      window.count += 1;
      const resetMs = window.start + windowMs;
      headers = { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(Math.max(limit - window.count, 0)), 'x-ratelimit-reset': String(Math.ceil(resetMs / 1000)) };
      if (window.count > limit) {
        state.rateLimited += 1;
        return send(res, 429, {
          error: { code: 'rate_limited', message: 'Rate limit exceeded', limit: { remaining: 0, reset: Math.ceil(resetMs / 1000), resetMs, total: limit } },
        }, headers);
      }
    }
    if (req.method !== 'GET') return error(res, 405, 'method_not_allowed', 'Method not allowed', headers);

    if (url.pathname === '/v6/deployments') {
      const q = url.searchParams;
      const limit = Math.min(Number(q.get('limit') ?? 20) || 20, 100);
      const until = q.get('until') ? Number(q.get('until')) : Infinity;
      const since = q.get('since') ? Number(q.get('since')) : -Infinity;
      const matching = state.deployments
        .filter((d) => (!q.get('projectId') || d.projectId === q.get('projectId')) && d.created < until && d.created > since)
        .filter((d) => !q.get('target') || (q.get('target') === 'production' ? d.target === 'production' : d.target !== 'production'))
        .filter((d) => !q.get('state') || q.get('state')!.split(',').includes(d.state))
        .sort((a, b) => b.created - a.created);
      const page = matching.slice(0, limit);
      const more = matching.length > page.length;
      return send(res, 200, {
        deployments: page.map(listItem),
        pagination: { count: page.length, next: more ? page.at(-1)!.created : null, prev: page[0]?.created ?? null },
      }, headers);
    }
    const single = /^\/v13\/deployments\/([^/]+)$/.exec(url.pathname);
    if (single) {
      const d = find(decodeURIComponent(single[1]!));
      return d ? send(res, 200, fullDeployment(d), headers) : error(res, 404, 'not_found', 'Deployment not found', headers);
    }
    const events = /^\/v3\/deployments\/([^/]+)\/events$/.exec(url.pathname);
    if (events) {
      const d = find(decodeURIComponent(events[1]!));
      if (!d) return error(res, 404, 'not_found', 'Deployment not found', headers);
      const lines = state.events[d.uid] ?? [];
      const ordered = url.searchParams.get('direction') === 'backward' ? [...lines].reverse() : lines;
      const limit = Number(url.searchParams.get('limit') ?? -1);
      const sliced = limit > 0 ? ordered.slice(0, limit) : ordered;
      return send(res, 200, sliced.map((e, serial) => ({
        type: e.type, created: e.created, date: e.created, text: e.text,
        payload: { deploymentId: d.uid, id: `${d.uid}-${serial}`, date: e.created, serial: String(serial).padStart(6, '0'), text: e.text, info: { type: 'build', name: `bld_${d.uid.slice(4, 14)}`, entrypoint: '.' } },
      })), headers);
    }
    return error(res, 404, 'not_found', 'The requested path was not found', headers);
  };

  const server = createServer((req, res) => {
    try { handle(req, res); } catch (e) { error(res, 500, 'internal_server_error', String(e)); }
  });
  const { origin, close } = await listenOnLoopback(server);
  return { url: `${origin}`, state, close };
}
