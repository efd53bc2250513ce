/**
 * Before a connection is saved: one cheap read through the connector with the given token, so a wrong
 * token, a token without access and a repository/project that does not exist are refused at `connect`
 * (not discovered at backfill), and a second connection of a workspace to the same source is refused.
 */
import type { Connector } from '@engram/connectors';
import type { Connection } from '@engram/stores';
import { ApiError } from '../http/errors.js';

const PROVIDER = { github: 'GitHub', linear: 'Linear', vercel: 'Vercel' } as const;
type Provider = keyof typeof PROVIDER;

/** The read each provider answers only for a working token that can see the configured source. */
function probe(provider: Provider, config: Record<string, string>): { action: string; params: Record<string, unknown>; what: string } {
  switch (provider) {
    case 'github': {
      const [owner, repo] = config.repo!.split('/');
      return { action: 'github.list-pull-requests', params: { owner, repo, per_page: 1, state: 'all' }, what: `repository ${config.repo}` };
    }
    case 'linear':
      return { action: 'linear.list-issues', params: { first: 1 }, what: 'the Linear workspace' };
    case 'vercel':
      return { action: 'vercel.list-deployments', params: { limit: 1 }, what: `project ${config.projectId}` };
  }
}

const messageOf = (data: unknown): string => {
  const d = data as { message?: unknown; error?: { message?: unknown } } | null;
  return String(d?.message ?? d?.error?.message ?? '').slice(0, 200);
};

/** Throws the documented 400 (bad credentials, no access, no such source) or 502 (provider unreachable). */
export async function checkProviderAccess(connector: Connector, provider: Provider, config: Record<string, string>, signal?: AbortSignal): Promise<void> {
  const { action, params, what } = probe(provider, config);
  const run = connector.actions().find((a) => a.action === action);
  if (!run) return;
  const name = PROVIDER[provider];
  let status: number;
  let said: string;
  try {
    const out = await run.run(params, signal);
    status = out.status;
    said = messageOf(out.data);
  } catch (err) {
    const e = err as { status?: number; message?: string };
    if (typeof e.status !== 'number') {
      throw new ApiError(502, 'UNAVAILABLE', `cannot reach ${name} to check the token: ${e.message ?? String(err)}`, { resource: 'provider', reason: 'unreachable' });
    }
    status = e.status;
    said = String(e.message ?? '').slice(0, 200);
  }
  if (status < 400) return;
  const reason = said ? ` (${name} said: "${said}")` : '';
  // GitHub answers 401; Vercel 403 "Not authorized" (invalidToken); Linear 400 with an authentication error.
  const badCredentials = status === 401 || (provider === 'vercel' && status === 403 && /not authorized|invalid token/i.test(said)) || (provider === 'linear' && status === 400 && /authenticat/i.test(said));
  if (badCredentials) {
    throw new ApiError(400, 'BAD_REQUEST', `${name} rejected the token: bad credentials${reason}`, { field: 'token', reason: 'bad credentials' });
  }
  if (status === 403) {
    throw new ApiError(400, 'BAD_REQUEST', `the token cannot read ${what}: missing scopes or permissions${reason}`, { field: 'token', reason: 'missing scopes' });
  }
  if (status === 404) {
    const hint = provider === 'github' ? ' (a classic token needs the "repo" scope for a private repository; a fine-grained token needs read access to it)' : '';
    throw new ApiError(400, 'BAD_REQUEST', `${what} was not found, or the token cannot see it${hint}`, { field: 'config', reason: 'not found' });
  }
  if (status === 429) throw new ApiError(502, 'UNAVAILABLE', `${name} is rate-limiting this token; try again later${reason}`, { resource: 'provider', reason: 'rate limited' });
  throw new ApiError(502, 'UNAVAILABLE', `${name} answered ${status} when checking the token${reason}`, { resource: 'provider', reason: `status ${status}` });
}

/** What makes two connections of one workspace the same source. */
export function sourceKey(provider: string, config: Record<string, string>): string {
  const norm = (s: string | undefined) => (s ?? '').trim().toLowerCase().replace(/\/+$/, '');
  switch (provider) {
    case 'github':
      return `github:${norm(config.baseUrl)}:${norm(config.repo)}`;
    case 'linear':
      return `linear:${norm(config.apiUrl)}:${norm(config.teamKey)}`;
    default:
      return `vercel:${norm(config.baseUrl)}:${norm(config.teamId)}:${norm(config.projectId)}`;
  }
}

export function duplicateOf(existing: Connection[], provider: string, config: Record<string, string>): Connection | undefined {
  const key = sourceKey(provider, config);
  return existing.find((c) => c.provider === provider && sourceKey(c.provider, c.config) === key);
}
