/**
 * Bounds on one proxied provider call: a deadline (an AbortSignal handed to the provider client, and a
 * timer that answers even if a client ignores it) and a cap on the response bytes read.
 */

export class ProxyLimitError extends Error {
  override name = 'ProxyLimitError';
  constructor(
    readonly kind: 'timeout' | 'too-large',
    message: string,
  ) {
    super(message);
  }
}

export const DEFAULT_PROXY_TIMEOUT_MS = 15_000;
export const DEFAULT_PROXY_MAX_RESPONSE_BYTES = 5_000_000;

/**
 * A `fetch` that reads at most `maxBytes` of a response body: a larger `content-length` fails before the
 * body is read, and a body that grows past the cap while streaming is cancelled.
 */
export function cappedFetch(maxBytes: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    const tooLarge = () => new ProxyLimitError('too-large', `the provider response is larger than ${maxBytes} bytes`);
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (!res.body) return res;
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
    const headers = new Headers(res.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    return new Response(Buffer.concat(chunks), { status: res.status, statusText: res.statusText, headers });
  };
}

/**
 * Runs `work` with a signal that aborts at the deadline or with `outer` (the caller's request ending);
 * rejects at either regardless, so a client that ignores its signal holds no one.
 */
export async function withDeadline<T>(timeoutMs: number, outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  let timer: NodeJS.Timeout | undefined;
  let onOuterAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new ProxyLimitError('timeout', `the provider did not answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    if (outer) {
      onOuterAbort = () => reject(outer.reason);
      if (outer.aborted) onOuterAbort();
      else outer.addEventListener('abort', onOuterAbort, { once: true });
    }
  });
  try {
    return await Promise.race([work(signal), deadline]);
  } finally {
    clearTimeout(timer);
    if (onOuterAbort) outer?.removeEventListener('abort', onOuterAbort);
  }
}

/** Serialised size of a result's data, for providers whose client buffers the whole response. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null));
}
