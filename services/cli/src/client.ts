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

export const defaultUrl = (env: NodeJS.ProcessEnv): string => `http://localhost:${env.PORT || 3000}`;

/** `--admin-token`, else `$ENGRAM_ADMIN_TOKEN`, else `<ENGRAM_DATA_DIR or ./.data>/admin-token`. */
export function resolveAdminToken(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return flag;
  if (env.ENGRAM_ADMIN_TOKEN) return env.ENGRAM_ADMIN_TOKEN;
  const path = join(env.ENGRAM_DATA_DIR || './.data', 'admin-token');
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    throw new CliError(`no admin token: pass --admin-token, set ENGRAM_ADMIN_TOKEN, or run the server once so it writes ${path}`, 'NO_ADMIN_TOKEN');
  }
}

export interface AdminClient {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

export function createAdminClient(options: { url: string; token: string }): AdminClient {
  const base = options.url.replace(/\/+$/, '');
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${options.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw new CliError(`cannot reach the Engram server at ${base}: ${(err as Error).message} (is it running? --url sets the address)`, 'UNREACHABLE');
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
      throw new CliError(e.message ?? `HTTP ${res.status}`, e.code ?? `HTTP_${res.status}`, res.status, e.data ?? null);
    }
    return parsed as T;
  };
  return { get: (path) => call('GET', path), post: (path, body) => call('POST', path, body) };
}
