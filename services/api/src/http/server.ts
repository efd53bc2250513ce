import { createServer, type Server, type ServerOptions } from 'node:http';
import type { RequestListener } from 'node:http';
import type { Config } from '@engram/runtime';

/**
 * How often Node looks for requests past `requestTimeout` / `headersTimeout`. Node's default (30 s) lets a
 * client that trickles its headers or body hold a connection up to 30 s past either timeout.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * The HTTP server's timeouts, from the configuration: a client that has not sent its whole request within
 * `requestTimeoutMs` (its headers within `headersTimeoutMs`) gets 408 and its connection is closed.
 */
export function serverOptions(http: Config['http']): ServerOptions {
  return {
    requestTimeout: http.requestTimeoutMs,
    headersTimeout: http.headersTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, http.headersTimeoutMs),
  };
}

/** Serves `app` on `host:port` (0: any free port) with the configured timeouts; resolves once listening. */
export function listen(app: RequestListener, http: Config['http'], port: number, host: string): Promise<Server> {
  const server = createServer(serverOptions(http), app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
