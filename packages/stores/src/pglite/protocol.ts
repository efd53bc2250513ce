/** Messages between the main thread and the PGlite thread (`thread.ts` -> `worker.ts`). */
export type PgliteRequest =
  /**
   * `interactive`: an API request's statement (goes before background work). `shareTx`: a read that may
   * run inside the transaction holding the connection, between its statements, rather than wait for it.
   * `urgent`: background work other background work waits for (goes before it, after API requests').
   * `blob`: what a `COPY ... FROM '/dev/blob'` reads.
   */
  | { id: number; op: 'query'; sql: string; params: unknown[]; tx?: number; interactive?: boolean; urgent?: boolean; shareTx?: boolean; blob?: Uint8Array }
  | { id: number; op: 'exec'; sql: string }
  /** Opens transaction `tx`; answered when it commits (after `commit`) or rolls back (after `rollback`). */
  | { id: number; op: 'begin'; tx: number; interactive?: boolean; urgent?: boolean }
  | { id: number; op: 'commit' | 'rollback'; tx: number }
  | { id: number; op: 'close' };

export type PgliteReply =
  | { id: number; ok: true; rows?: unknown[]; affectedRows?: number }
  /** The error's message and its own fields (a Postgres error's `code`, `detail`, `constraint` ...). */
  | { id: number; ok: false; error: { message: string; name: string; fields: Record<string, unknown> } }
  /** Sent once, when the database has opened (or failed to). */
  | { id: 0; ready: true }
  | { id: 0; ready: false; error: string };
