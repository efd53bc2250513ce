/** The CLI is an HTTP client of the server's `/admin` endpoints: the same against embedded or distributed. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 'CLI_ERROR',
    readonly status: number | null = null,
    readonly data: unknown = null,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface GlobalOptions {
  url: string;
  adminToken?: string;
  json?: boolean;
}

/** `$ENGRAM_URL`, else the local server on `$PORT` (as `npm start` listens), else port 3000. */
export const defaultUrl = (env: NodeJS.ProcessEnv): string => env.ENGRAM_URL || `http://localhost:${env.PORT || 3000}`;

export interface AdminToken {
  token: string;
  /** Where it came from, named in the error when the server rejects it. */
  source: string;
}

/** `--admin-token`, else `$ENGRAM_ADMIN_TOKEN`, else `<ENGRAM_DATA_DIR or ./.data>/admin-token`. */
export function resolveAdminToken(flag: string | undefined, env: NodeJS.ProcessEnv): AdminToken {
  if (flag) return { token: flag, source: '--admin-token' };
  if (env.ENGRAM_ADMIN_TOKEN) return { token: env.ENGRAM_ADMIN_TOKEN, source: '$ENGRAM_ADMIN_TOKEN' };
  const path = join(env.ENGRAM_DATA_DIR || './.data', 'admin-token');
  try {
    return { token: readFileSync(path, 'utf8').trim(), source: path };
  } catch {
    throw new CliError(`no admin token: pass --admin-token, set ENGRAM_ADMIN_TOKEN, or run the server once so it writes ${path}`, 'NO_ADMIN_TOKEN');
  }
}

export interface AdminClient {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  delete<T>(path: string): Promise<T>;
}

/**
 * Waits before each retry of a GET the network failed. A GET changes nothing, so it is safe to repeat, and
 * a poll (`import --wait`, `backfill`) should outlive a dropped connection: an embedded server busy
 * re-clustering can drop a kept-alive connection as its idle timer fires late, resetting a request in flight.
 */
const GET_RETRY_DELAYS_MS = [500, 2_000, 5_000];

export function createAdminClient(options: { url: string; token: string; tokenSource?: string; retryDelaysMs?: readonly number[] }): AdminClient {
  const base = options.url.replace(/\/+$/, '');
  const retryDelays = options.retryDelaysMs ?? GET_RETRY_DELAYS_MS;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let res: Response | undefined;
    for (let attempt = 0; !res; attempt++) {
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${options.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (err) {
        const delay = method === 'GET' ? retryDelays[attempt] : undefined;
        if (delay === undefined) {
          throw new CliError(`cannot reach the Engram server at ${base}: ${(err as Error).message} (is it running? --url sets the address)`, 'UNREACHABLE');
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { message: text.slice(0, 300) };
    }
    if (!res.ok) {
      const e = (parsed ?? {}) as { code?: string; message?: string; data?: unknown };
      let message = e.message ?? `HTTP ${res.status}`;
      if (res.status === 401 && path.startsWith('/admin/')) message += ` (the admin token came from ${options.tokenSource ?? '--admin-token'}; the server at ${base} printed its token on first start and saved it to <its data dir>/admin-token)`;
      throw new CliError(message, e.code ?? `HTTP_${res.status}`, res.status, e.data ?? null);
    }
    return parsed as T;
  };
  return { get: (path) => call('GET', path), post: (path, body) => call('POST', path, body), delete: (path) => call('DELETE', path) };
}
