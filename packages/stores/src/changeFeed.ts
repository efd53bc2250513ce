import type { Db, Queryable } from './db.js';

/**
 * Following a change feed (rows stamped with `change_seq` from a sequence and `change_xid`, the writing
 * transaction's id, by a trigger; deletes leave stamped tombstones) from another process on a Postgres
 * server, where many writers commit concurrently. A reader that only asked for `change_seq > last seen`
 * would miss a row whose transaction took its number before a later one's and committed after the
 * reader passed it. So a position is the highest number seen plus the transactions that had not finished
 * when it was read (the snapshot's `xip`, and every id from its `xmax` on, which it does not list): the
 * next read asks for rows numbered above it or written by one of those (`changedSince`), and so sees each
 * committed write once it is visible, whatever the commit order. A read of the feed and the snapshot it
 * is measured against are one statement (`changesSince`), so they agree. On the embedded database one
 * process is the only writer and reads committed rows only, so its positions never list a transaction.
 */
export interface FeedPosition {
  /** Every row numbered up to this that was committed when the position was read has been applied. */
  after: number;
  /** Transactions in progress then below `horizon` (xid8 as text): their rows may be numbered below `after`. */
  pending: readonly string[];
  /** The snapshot's `xmax`: no transaction from this id on had finished then. */
  horizon: string;
}

/** Where a reader stands before it has read anything (on the embedded default, the only kind of position there is). */
export const FEED_START: FeedPosition = { after: 0, pending: [], horizon: '0' };

/** The WHERE clause over a stamped table for rows changed since a position (`$1`-`$3`, as `changesSince` binds them). */
export const changedSince = (alias = ''): string => `(${alias}change_seq > $1 OR ${alias}change_xid = ANY($2::xid8[]) OR ${alias}change_xid >= $3::xid8)`;

/** What a snapshot says of unfinished transactions: those it lists, and every id from its `xmax` on. */
const unfinishedIn = (snapshot: string): Omit<FeedPosition, 'after'> => {
  const [, xmax, xip] = snapshot.split(':');
  return { pending: xip ? xip.split(',') : [], horizon: xmax! };
};

/**
 * Reads, in one statement, the rows each of `reads` (SELECTs over stamped tables, filtered with
 * `changedSince()`; `$4` on is `params`) finds since `position`, and the position that follows: the highest
 * number among them (at least `position.after`) and what the statement's snapshot saw unfinished. An
 * empty answer costs one round trip and a few index probes, so a reader asks before each read.
 */
export async function changesSince<K extends string>(
  db: Queryable,
  position: FeedPosition,
  reads: Record<K, string>,
  params: readonly unknown[] = [],
): Promise<{ next: FeedPosition; rows: Record<K, (Record<string, unknown> & { change_seq: number })[]> }> {
  const keys = Object.keys(reads) as K[];
  const columns = keys.map((k) => `(SELECT coalesce(json_agg(r), '[]'::json) FROM (${reads[k]}) r) AS "${k}"`);
  const res = await db.query<Record<string, unknown>>(`SELECT pg_current_snapshot()::text AS snap, ${columns.join(', ')}`, [position.after, position.pending, position.horizon, ...params]);
  const row = res.rows[0]!;
  let after = position.after;
  const rows = {} as Record<K, (Record<string, unknown> & { change_seq: number })[]>;
  for (const k of keys) {
    rows[k] = row[k] as (Record<string, unknown> & { change_seq: number })[];
    for (const r of rows[k]) after = Math.max(after, Number(r.change_seq));
  }
  return { next: { after, ...unfinishedIn(String(row.snap)) }, rows };
}

/**
 * Where a reader that loads everything visible now starts following from: the highest number the
 * `highest` queries (each a `SELECT max(change_seq) ...`) find, and what is unfinished, in one statement.
 * A change the load does not see was made by a transaction unfinished then, which the position names.
 */
export async function feedStart(db: Queryable, highest: readonly string[]): Promise<FeedPosition> {
  const max = highest.map((q) => `(${q})`).join(', ');
  const res = await db.query<{ seq: string | null; snap: string }>(`SELECT greatest(${max}) AS seq, pg_current_snapshot()::text AS snap`);
  return { after: Number(res.rows[0]?.seq ?? 0), ...unfinishedIn(res.rows[0]!.snap) };
}

export interface Follower {
  /** Applies every write committed before the call (a catch-up already running may have started before it). */
  refresh(): Promise<void>;
  /**
   * `refresh`, unless that means waiting on writers: then waits at most about `maxStalenessMs` (while a
   * catch-up has been running longer than that, or `writerBusy` holds) and answers with what is applied.
   */
  fresh(): Promise<void>;
  /** Stops following; resolves once a catch-up under way has finished. */
  close(): Promise<void>;
}

/**
 * Runs a reader's catch-ups one at a time: before reads (`fresh`) and every `followMs` in the background,
 * whenever `stale` says there may be something to apply (on a Postgres server it always may: there the
 * catch-up's one statement is the check).
 */
export function createFollower(options: {
  stale: () => boolean | Promise<boolean>;
  catchUp: () => Promise<void>;
  /** Whether the reader can apply anything yet (it has loaded). */
  active: () => boolean;
  followMs: number;
  maxStalenessMs?: number;
  writerBusy?: () => boolean;
  onError?: (err: unknown) => void;
}): Follower {
  let inFlight: Promise<void> | null = null;
  let inFlightSince = 0;
  let closed = false;
  /** Catch-ups begun, and the number of the last one to end (they run one at a time). */
  let begun = 0;
  let ended = 0;

  async function refresh(): Promise<void> {
    // A catch-up begun after this call read everything committed before it: once one has ended, done.
    const arrived = begun;
    for (let round = 0; round < 3 && ended <= arrived && options.active() && !closed && (await options.stale()); round++) {
      if (!inFlight) {
        inFlightSince = performance.now();
        const n = ++begun;
        inFlight = options.catchUp().finally(() => {
          inFlight = null;
          ended = n;
        });
      }
      await inFlight;
    }
  }

  // Writes are followed in the background as well as before reads: an import nobody searched during left
  // its whole change feed to the first searches after it, and while that one catch-up ran (over a minute
  // after a 100k import) every read waited `maxStalenessMs` and answered from the index before the import.
  const timer =
    options.followMs > 0
      ? setInterval(() => {
          if (options.active() && !closed && !inFlight) void refresh().catch((err: unknown) => options.onError?.(err));
        }, options.followMs)
      : null;
  timer?.unref();

  return {
    refresh,
    async fresh() {
      const max = options.maxStalenessMs;
      if (max === undefined) return refresh();
      const behind = inFlight !== null && performance.now() - inFlightSince >= max;
      const busy = options.writerBusy ?? (() => false);
      await waitUnless(refresh(), max, behind ? () => true : busy);
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await inFlight?.catch(() => undefined);
    },
  };
}

/** `work`, or nothing once `giveUp` holds at one of the checks made every `everyMs` while it runs. */
async function waitUnless(work: Promise<void>, everyMs: number, giveUp: () => boolean): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const given = new Promise<void>((resolve) => {
    timer = setInterval(() => giveUp() && resolve(), everyMs);
  });
  await Promise.race([work, given]).finally(() => clearInterval(timer));
}

/** How often a Postgres server's table statistics are read while someone asks (ms). */
const STATS_POLL_MS = 250;
/** Polling stops when nobody has asked for this long, and starts again at the next question. */
const STATS_IDLE_MS = 10_000;
const counters = new WeakMap<Db, (tables: readonly string[]) => number>();

/**
 * A number that moves whenever one of `tables` is written, for caches that hold what they read until
 * then. On the embedded default this process is the only writer: its own write counter, exact. On a
 * Postgres server other processes write too: this process's writes (at once) plus the rows every
 * process inserted, updated and deleted as the server's statistics count them (`pg_stat_user_tables`,
 * read every 250 ms while asked; a backend reports its counts within about a second of its commit). So
 * there a cache may serve what it holds for about a second after another process's write, which is
 * what the search's context snapshots allow (`SEARCH_CONTEXT_STALENESS_MS`); reads that must see a write
 * at once (keys, the search index itself) do not use this. Should the statistics be unreadable, the
 * number moves on every call (nothing is taken as unchanged).
 */
export function tableChanges(db: Db): (tables: readonly string[]) => number {
  if (db.kind === 'pglite') return (tables) => db.writeCount(tables);
  const known = counters.get(db);
  if (known) return known;
  const counted = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let askedAt = 0;
  let polling = false;
  let unreadable = false;
  let tick = 0;
  const poll = async (): Promise<void> => {
    if (polling) return;
    polling = true;
    try {
      const res = await db.query<{ relname: string; n: number }>('SELECT relname, (n_tup_ins + n_tup_upd + n_tup_del)::float8 AS n FROM pg_stat_user_tables');
      counted.clear();
      for (const r of res.rows) counted.set(r.relname, (counted.get(r.relname) ?? 0) + Number(r.n));
      unreadable = false;
    } catch {
      unreadable = true;
    } finally {
      polling = false;
    }
    if (timer && Date.now() - askedAt > STATS_IDLE_MS) {
      clearInterval(timer);
      timer = null;
    }
  };
  const count = (tables: readonly string[]): number => {
    askedAt = Date.now();
    if (!timer) {
      timer = setInterval(() => void poll(), STATS_POLL_MS);
      timer.unref();
      void poll();
    }
    if (unreadable) return -++tick;
    let n = db.writeCount(tables);
    for (const t of tables) n += counted.get(t) ?? 0;
    return n;
  };
  counters.set(db, count);
  return count;
}
