/**
 * A store that is down (Postgres stopped or restarting, Redis unreachable) is the server's transient
 * condition, not a bug: the request answers 503 UNAVAILABLE with `Retry-After`, which clients and the SDK
 * retry, instead of 500. Recognised by the drivers' own marks: socket errors, Postgres SQLSTATE classes
 * 08 (connection exception) and 57P (operator intervention: shutdown, restart, cannot connect now), and
 * the messages pg and ioredis give a connection that is gone.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
const MESSAGES = [
  /^Connection terminated/i, // pg: the server closed the connection
  /^Client has encountered a connection error/i, // pg
  /^Connection is closed/i, // ioredis
  /Stream isn't writeable/i, // ioredis without an offline queue
  /^Reached the max retries per request limit/i, // ioredis
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

export function isStoreUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const { code, message, cause, errors } = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || /^08/.test(code) || /^57P0[1-3]$/.test(code))) return true;
  if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
  // AggregateError (a refused connection to every address of a host) and wrapped causes.
  if (Array.isArray(errors) && errors.some((e) => isStoreUnavailable(e, depth + 1))) return true;
  return isStoreUnavailable(cause, depth + 1);
}
