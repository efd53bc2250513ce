import type { Db, Queryable } from './db.js';

/**
 * Following a change feed (rows stamped with `change_seq` from a sequence and `change_xid`, the writing
 * transaction's id, by a trigger; deletes leave stamped tombstones) from another process on a Postgres
 * server, where many writers commit concurrently. A reader that only asked for `change_seq > last seen`
 * would miss a row whose transaction took its number before a later one's and committed after the
 * reader passed it. So a position is the highest number seen plus the transactions that had not finished
 * when it was read (the snapshot's `xip`, and every id from its `xmax` on, which it does not list): the
 * next read asks for rows numbered above it or written by one of those (`changedSince`), and so sees each
 * committed write once it is visible, whatever the commit order.
 * Every read of a position runs in one REPEATABLE READ snapshot (`inSnapshot`), so the numbers it sees
 * and the transactions it lists as in progress agree. On the embedded database one process is the only
 * writer and reads committed rows only, so its positions never list a transaction.
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

/** The WHERE clause over a stamped table for rows changed since a position (`$1`-`$3`: `changedParams`). */
export const changedSince = (alias = ''): string => `(${alias}change_seq > $1 OR ${alias}change_xid = ANY($2::xid8[]) OR ${alias}change_xid >= $3::xid8)`;
export const changedParams = (p: FeedPosition): [number, readonly string[], string] => [p.after, p.pending, p.horizon];

/** What a snapshot says of unfinished transactions: those it lists, and every id from its `xmax` on. */
export interface Unfinished {
  pending: readonly string[];
  horizon: string;
}

/** Runs `fn` in a read-only REPEATABLE READ transaction, with the transactions its snapshot sees as unfinished. */
export async function inSnapshot<T>(db: Db, fn: (tx: Queryable, unfinished: Unfinished) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const snap = await tx.query<{ snap: string }>('SELECT pg_current_snapshot()::text AS snap');
    const [, xmax, xip] = snap.rows[0]!.snap.split(':');
    return fn(tx, { pending: xip ? xip.split(',') : [], horizon: xmax! });
  });
}

/**
 * Where a reader that loads everything visible now starts following from: the highest number the
 * `highest` queries (each a `SELECT max(change_seq) ...`) find, and what is unfinished. A change the
 * load does not see was made by a transaction unfinished then, which the position names.
 */
export async function feedStart(db: Db, highest: readonly string[]): Promise<FeedPosition> {
  return inSnapshot(db, async (tx, unfinished) => {
    const max = highest.map((q) => `(${q})`).join(', ');
    const res = await tx.query<{ seq: string | null }>(`SELECT greatest(${max}) AS seq`);
    return { after: Number(res.rows[0]?.seq ?? 0), ...unfinished };
  });
}

/** The snapshot's parts, as `pg_current_snapshot()::text` gives them (`xmin:xmax:xip,...`). */
interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  xip: ReadonlySet<string>;
}
const parseSnapshot = (text: string): Snapshot => {
  const [xmin, xmax, xip] = text.split(':');
  return { xmin: BigInt(xmin!), xmax: BigInt(xmax!), xip: new Set(xip ? xip.split(',') : []) };
};
/** Whether transaction `xid` has ended (committed or rolled back) as of `s`. */
const ended = (xid: string, s: Snapshot): boolean => {
  const x = BigInt(xid);
  return x < s.xmin || (x < s.xmax && !s.xip.has(xid));
};

/**
 * Whether a feed has changed since a position was read, from one cheap statement: the sequence has
 * moved (a write took a number since), or a transaction the position counts as unfinished has ended. Reads
 * that ask in the same turn of the event loop share one probe (a search's reads ask together): the
 * statement runs after all of them asked, so it sees every write committed before any of them.
 */
export function feedProbe(db: Db, sequence: string): { changed(position: FeedPosition, seenHead: string): Promise<boolean>; head(): Promise<string> } {
  let shared: Promise<{ head: string; snapshot: Snapshot }> | null = null;
  const probe = () => {
    if (shared) return shared;
    const result = db
      .query<{ head: string; snap: string }>(`SELECT (SELECT last_value FROM ${sequence})::text AS head, pg_current_snapshot()::text AS snap`)
      .then((r) => ({ head: r.rows[0]!.head, snapshot: parseSnapshot(r.rows[0]!.snap) }));
    shared = result;
    setImmediate(() => {
      shared = null;
    });
    return result;
  };
  return {
    async changed(position, seenHead) {
      const { head, snapshot } = await probe();
      return head !== seenHead || snapshot.xmax > BigInt(position.horizon) || position.pending.some((xid) => ended(xid, snapshot));
    },
    async head() {
      const r = await db.query<{ head: string }>(`SELECT last_value::text AS head FROM ${sequence}`);
      return r.rows[0]!.head;
    },
  };
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
 * whenever `stale` says there is something to apply.
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

  async function refresh(): Promise<void> {
    for (let round = 0; round < 3 && options.active() && !closed && (await options.stale()); round++) {
      if (!inFlight) {
        inFlightSince = performance.now();
        inFlight = options.catchUp().finally(() => {
          inFlight = null;
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
