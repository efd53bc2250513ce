import type { JobQueue } from '@engram/queue';
import type { Db, SecretBox, WebhookSecretCache } from '@engram/stores';
import type { ConnectorFactory } from '../registry.js';

/** The few log calls the sync engine makes (a pino logger fits). */
export interface SyncLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Everything the sync engine needs, passed in: stores, queue, the key that opens provider tokens. */
export interface SyncDeps {
  db: Db;
  queue: JobQueue;
  secretBox: SecretBox;
  /** Builds a connection's connector; defaults to the production registry. */
  connectorFor?: ConnectorFactory;
  logger?: SyncLogger;
  /** Decrypted webhook secrets kept between deliveries (default: one cache per `secretBox`). */
  webhookSecrets?: WebhookSecretCache;
  /** Distinct webhook secrets tried for a delivery that names no connection (default 32). */
  maxWebhookSecrets?: number;
}

/**
 * The payload stream of a connection-wide job: `{stream: '*', mode: 'incremental'}` is the scheduled
 * tick that starts an incremental walk of every stream; a named stream continues that stream's walk.
 */
export const ALL_STREAMS = '*';

/**
 * A finished walk's high-water mark is the time it started, less this overlap: objects changed while it
 * ran (or stamped by a provider clock a little behind ours) are fetched again by the next incremental
 * walk rather than missed; re-fetching an unchanged object stages nothing.
 */
export const HIGH_WATER_OVERLAP_MS = 60_000;
