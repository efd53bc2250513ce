import type { z } from 'zod';
import type { SourceEvent, SourceSystem } from '@engram/contracts';

/** Called whenever a connector waits for a provider's rate limit or retries after a transient failure. */
export interface SyncObserver {
  onRateLimitWait?(info: { ms: number; reason: string }): void;
  onRetry?(info: { attempt: number; status?: number; reason: string }): void;
}

/** One page of a stream. `next` is a JSON-serialisable cursor; `null` means the stream is exhausted. */
export interface SyncPage {
  events: SourceEvent[];
  next: StreamCursor | null;
  /** Best-effort total for progress bars (items in the whole stream), when the provider tells. */
  totalHint?: number;
}

/** JSON-serialisable position inside a stream. Connectors own its shape. */
export type StreamCursor = Record<string, unknown>;

export interface FetchPageOptions {
  /** Incremental sync / `--since`: only objects created or updated at or after this ISO time. */
  since?: string;
  signal?: AbortSignal;
}

/**
 * A resumable, paginated walk over one kind of provider object (pull requests, commits, ...).
 * `fetchPage(null)` starts at the beginning; feeding back `page.next` continues. Fetching the same
 * cursor twice returns the same objects (so a crash between fetching and checkpointing re-delivers,
 * and the idempotent indexer absorbs it), never skips.
 */
export interface ConnectorStream {
  name: string;
  fetchPage(cursor: StreamCursor | null, options?: FetchPageOptions): Promise<SyncPage>;
}

/** Result of a proxied provider call: never contains credentials or auth headers. */
export interface ProxyResult {
  status: number;
  data: unknown;
  headers: Record<string, string>;
}

export interface ProxyAction<P extends z.ZodType = z.ZodType> {
  /** Dotted identifier `<provider>.<verb-noun>`, e.g. `github.list-pull-requests`. */
  action: string;
  description: string;
  /** Zod object schema of the flat params; its keys are the advertised param names. */
  params: P;
  /** `signal` aborts at the call's deadline; `limits.maxResponseBytes` caps what the client reads. */
  run(params: z.infer<P>, signal?: AbortSignal, limits?: { maxResponseBytes?: number }): Promise<ProxyResult>;
}

/** A resource a connection exposes in proxy search, with params that can be spread into a call. */
export interface ProxyResource {
  name: string;
  params: Record<string, string>;
  syncing: string[];
}

export interface Connector {
  provider: SourceSystem;
  streams(): ConnectorStream[];
  /**
   * Fetches one object by its human-facing provider URL (PR, issue, commit, Linear issue) and
   * normalises it; `null` when the URL is not one this connection can fetch.
   */
  fetchByUrl(url: string, signal?: AbortSignal): Promise<SourceEvent | null>;
  resources(): ProxyResource[];
  actions(): ProxyAction[];
}
