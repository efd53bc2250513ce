/**
 * Errors the query side raises for outcomes a caller must tell apart from a fault. They cross package
 * boundaries, so they live here; the api's error middleware maps each class to its documented status
 * (`NotFoundError` 404 NOT_FOUND, `UpstreamError` 502 UNAVAILABLE). Match them with `instanceof`.
 */

/** The named resource (`item`, `connection`, `action`) does not exist in the caller's workspace. */
export class NotFoundError extends Error {
  constructor(
    readonly resource: string,
    message = `${resource} not found`,
  ) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/**
 * A provider behind a connection failed, could not be reached, took too long (`status` 504) or answered
 * more than the response cap; `reason` carries no credential.
 */
export class UpstreamError extends Error {
  constructor(
    readonly resource: string,
    readonly reason: string,
    message = `the ${resource} call failed: ${reason}`,
    readonly status: 502 | 504 = 502,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}
