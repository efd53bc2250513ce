/** One JSON object on stdout with `--json`; readable lines otherwise. Errors: stderr and a non-zero exit. */
import { CliError } from './client.js';

export interface Output {
  json: boolean;
  /** The command's result: the JSON object, or the human lines. */
  result(value: object, human: () => string): void;
  /** Progress and notes for people (stderr, never with --json). */
  note(line: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(value, human) {
      process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
    },
    note(line) {
      if (!json) process.stderr.write(`${line}\n`);
    },
  };
}

/**
 * Exit codes scripts can rely on (README, "CLI"): 0 done; 1 the work failed (items failed to index, streams
 * failed, a server error); 2 usage or input refused (bad flags, unknown workspace, malformed repo, a
 * duplicate connection, a provider token the provider rejects); 3 the server cannot be reached; 4 the admin
 * token is missing or wrong.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, auth: 4 } as const;

export function exitCodeOf(e: CliError): number {
  if (e.code === 'UNREACHABLE') return EXIT.unreachable;
  if (e.code === 'NO_ADMIN_TOKEN' || e.status === 401) return EXIT.auth;
  if (e.code === 'USAGE' || e.code === 'FILE_UNREADABLE' || (e.status !== null && e.status >= 400 && e.status < 500)) return EXIT.usage;
  return EXIT.failed;
}

export function reportError(err: unknown, json: boolean): void {
  const e = err instanceof CliError ? err : new CliError(err instanceof Error ? err.message : String(err));
  // A BAD_REQUEST's details ({field, reason}) say what was refused when its message is generic.
  const detail = e.data as { field?: unknown; reason?: unknown } | null;
  const reason = typeof detail?.reason === 'string' && !e.message.includes(detail.reason) ? ` (${typeof detail.field === 'string' ? `${detail.field}: ` : ''}${detail.reason})` : '';
  process.stderr.write(`engram: ${e.message}${reason}\n`);
  if (json) process.stdout.write(`${JSON.stringify({ error: { code: e.code, message: e.message, status: e.status, data: e.data } })}\n`);
  process.exitCode = exitCodeOf(e);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
