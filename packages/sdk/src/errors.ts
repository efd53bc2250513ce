/**
 * Every failure the client raises is an `EngramError`: `code` is the API's stable error code (or one of the
 * client's own: `TIMEOUT`, `NETWORK_ERROR`, `INVALID_RESPONSE`), `status` the HTTP status (0 when no response
 * arrived) and `requestId` the server's id for the request, to quote in a bug report.
 */
export class EngramError extends Error {
  override name = 'EngramError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> | null = null,
    readonly requestId: string | undefined = undefined,
    /** Attempts made, retries included. */
    readonly attempts = 1,
  ) {
    super(message);
  }

  /** 429 and 5xx (except 501), timeouts and network failures: worth another try on an idempotent call. */
  get retryable(): boolean {
    if (this.status === 0) return this.code === 'TIMEOUT' || this.code === 'NETWORK_ERROR';
    return this.status === 429 || (this.status >= 500 && this.status !== 501);
  }
}

/** Parses `Retry-After` (delta-seconds or an HTTP date) into milliseconds; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(at - now, 0);
}
