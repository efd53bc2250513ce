import { AsyncLocalStorage } from 'node:async_hooks';
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
  /** Where a catch-up that filled a page of rows written from `horizon` on stopped (`xid:seq`), to go on from there. */
  cursor?: string;
}

/** Where a reader stands before it has read anything (on the embedded default, the only kind of position there is). */
export const FEED_START: FeedPosition = { after: 0, pending: [], horizon: '0' };

/** What a catch-up reads of one stamped table: its columns (`change_seq` among them) and rows, and a filter of its own. */
export interface FeedRead {
  from: string;
  columns: string;
  /** A condition of the read's own (`$6` on are `changesSince`'s `params`). */
  where?: string;
}

/**
 * Rows a branch of a catch-up reads per statement. Each branch is ordered by the column its index
 * serves and limited, so the planner takes the index even on a table never analyzed (seen: a server
 * with autovacuum off planned the three conditions OR-ed as a sequential scan of every item, per read).
 */
export const FEED_PAGE = 5_000;

/** Parts of `pg_current_snapshot()::text`. */
interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  xip: ReadonlySet<string>;
}
const parseSnapshot = (text: string): Snapshot => {
  const [xmin, xmax, xip] = text.split(':');
  return { xmin: BigInt(xmin!), xmax: BigInt(xmax!), xip: new Set(xip ? xip.split(',') : []) };
};

/** What a snapshot says of unfinished transactions: those it lists, and every id from its `xmax` on. */
const unfinishedIn = (snapshot: string): Omit<FeedPosition, 'after'> => {
  const { xmax, xip } = parseSnapshot(snapshot);
  return { pending: [...xip], horizon: String(xmax) };
};

/**
 * A read's three branches: numbered after the position; or numbered up to it (the first branch reads the
 * rest) and written by a transaction it lists, or by one from its horizon on (past the cursor, in
 * (xid, number) order, where a page of them was read). "Up to it" is `change_seq + 0`, which no index
 * serves: as a plain condition the planner read every item through the number's index for it (10 ms a
 * catch-up at 10k items) instead of the few rows of the transaction's index.
 */
const branches = (read: FeedRead, page: number): string => {
  const and = read.where ? `${read.where} AND ` : '';
  return [
    `(SELECT ${read.columns}, change_xid::text AS feed_xid, 1 AS feed_branch FROM ${read.from} WHERE ${and}change_seq > $1 ORDER BY change_seq LIMIT ${page})`,
    `(SELECT ${read.columns}, change_xid::text AS feed_xid, 2 AS feed_branch FROM ${read.from} WHERE ${and}change_xid = ANY($2::xid8[]) AND change_seq + 0 <= $1)`,
    `(SELECT ${read.columns}, change_xid::text AS feed_xid, 3 AS feed_branch FROM ${read.from}
      WHERE ${and}change_xid >= $3::xid8 AND change_seq + 0 <= $1 AND ($4::xid8 IS NULL OR (change_xid, change_seq) > ($4::xid8, $5::bigint))
      ORDER BY change_xid, change_seq LIMIT ${page})`,
  ].join(' UNION ALL ');
};

type FeedRow = Record<string, unknown> & { change_seq: number };

/**
 * Reads, in one statement, what each of `reads` finds changed since `position`, and the position that
 * follows: the highest number among them and what the statement's snapshot saw unfinished. An empty
 * answer costs one round trip and a few index probes, so a reader asks before each read. A row may come
 * twice (by number and by transaction); applying it twice is harmless. When a branch fills its page the
 * caller reads again from `next` (`more`): by number the position moves to the last row read, while the
 * transactions it named are kept, so a row of theirs past the page is read next time.
 */
export async function changesSince<K extends string>(
  db: Queryable,
  position: FeedPosition,
  reads: Record<K, FeedRead>,
  options: { params?: readonly unknown[]; page?: number; sequence?: string } = {},
): Promise<{ next: FeedPosition; more: boolean; rows: Record<K, FeedRow[]>; head: string }> {
  const { params = [], page = FEED_PAGE, sequence } = options;
  const keys = Object.keys(reads) as K[];
  const columns = keys.map((k) => `(SELECT coalesce(json_agg(r), '[]'::json) FROM (${branches(reads[k], page)}) r) AS "${k}"`);
  const head = sequence ? `(SELECT last_value FROM ${sequence})::text` : "''";
  const [cursorXid, cursorSeq] = position.cursor ? position.cursor.split(':') : [null, null];
  const res = await db.query<Record<string, unknown>>(`SELECT pg_current_snapshot()::text AS snap, ${head} AS head, ${columns.join(', ')}`, [
    position.after,
    position.pending,
    position.horizon,
    cursorXid,
    cursorSeq,
    ...params,
  ]);
  const row = res.rows[0]!;
  const rows = {} as Record<K, FeedRow[]>;
  let byNumberFull = false;
  /** Where the horizon branch stopped, for a read whose page it filled (the lowest such point over the reads). */
  let horizonStop: { xid: bigint; seq: number } | null = null;
  /** The highest number read by number, per read; where that branch filled its page, the position stops there. */
  let after = Infinity;
  let highest = position.after;
  for (const k of keys) {
    rows[k] = row[k] as (FeedRow & { feed_branch: number; feed_xid: string })[];
    const counts = [0, 0, 0, 0];
    let lastByNumber = position.after;
    let lastByHorizon: { xid: bigint; seq: number } | null = null;
    for (const r of rows[k] as (FeedRow & { feed_branch: number; feed_xid: string })[]) {
      counts[r.feed_branch]!++;
      highest = Math.max(highest, Number(r.change_seq));
      if (r.feed_branch === 1) lastByNumber = Math.max(lastByNumber, Number(r.change_seq));
      if (r.feed_branch === 3) lastByHorizon = { xid: BigInt(r.feed_xid), seq: Number(r.change_seq) };
    }
    if (counts[1] === page) {
      byNumberFull = true;
      after = Math.min(after, lastByNumber);
    }
    if (counts[3] === page && lastByHorizon && (!horizonStop || lastByHorizon.xid < horizonStop.xid || (lastByHorizon.xid === horizonStop.xid && lastByHorizon.seq < horizonStop.seq))) {
      horizonStop = lastByHorizon;
    }
  }
  const unfinished = unfinishedIn(String(row.snap));
  // While the horizon branch has more, the position keeps the transactions the old one named (and the
  // number it stood at, which bounds that branch), and goes on from where the branch stopped.
  const next: FeedPosition = horizonStop
    ? { after: position.after, pending: [...new Set([...position.pending, ...unfinished.pending])], horizon: position.horizon, cursor: `${horizonStop.xid}:${horizonStop.seq}` }
    : { after: byNumberFull ? after : highest, ...unfinished };
  return { next, more: byNumberFull || horizonStop !== null, rows, head: String(row.head) };
}

/**
 * Whether a feed may have changed since a position (read with the sequence at `head`): one statement
 * without a table, shared by the reads that ask in the same turn of the event loop (a search's paths ask
 * together; the statement goes out after all of them asked, so it sees every write committed before any
 * of them). Changed when the sequence has moved (a write took a number since), or when a transaction the
 * position counts as unfinished has ended (one listed, or any from its horizon on: the snapshot's `xmax`
 * has moved, which any transaction's end does, so this errs towards a catch-up, which is cheap when it
 * finds nothing).
 */
export function feedProbe(db: Queryable, sequence: string): (position: FeedPosition, head: string) => Promise<boolean> {
  let shared: Promise<{ head: string; snapshot: Snapshot }> | null = null;
  return async (position, head) => {
    if (!shared) {
      shared = db
        .query<{ head: string; snap: string }>(`SELECT (SELECT last_value FROM ${sequence})::text AS head, pg_current_snapshot()::text AS snap`)
        .then((r) => ({ head: r.rows[0]!.head, snapshot: parseSnapshot(r.rows[0]!.snap) }));
      const mine = shared;
      setImmediate(() => {
        if (shared === mine) shared = null;
      });
    }
    const now = await shared;
    if (now.head !== head || position.cursor) return true;
    if (now.snapshot.xmax > BigInt(position.horizon)) return true;
    return position.pending.some((xid) => {
      const x = BigInt(xid);
      return x < now.snapshot.xmin || (x < now.snapshot.xmax && !now.snapshot.xip.has(xid));
    });
  };
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

/** The followers a read of the current scope has already brought up to date (`consistentReads`). */
const checked = new AsyncLocalStorage<Set<object>>();

/**
 * Runs `fn` as one read of the index: each follower catches up once, at the first read of its feed in
 * `fn`, with everything committed before that read (so before `fn` began), and the later reads of `fn`
 * use what it applied instead of asking again. A search is such a read: its reads come in several turns
 * of the event loop, and on a Postgres server each turn's freshness check was a round trip.
 */
export function consistentReads<T>(fn: () => Promise<T>): Promise<T> {
  return checked.run(new Set(), fn);
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
 * whenever `stale` says there may be something to apply.
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

  const follower = {
    refresh,
    async fresh() {
      const scope = checked.getStore();
      if (scope?.has(follower)) return;
      const max = options.maxStalenessMs;
      if (max === undefined) await refresh();
      else {
        const behind = inFlight !== null && performance.now() - inFlightSince >= max;
        const busy = options.writerBusy ?? (() => false);
        await waitUnless(refresh(), max, behind ? () => true : busy);
      }
      scope?.add(follower);
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await inFlight?.catch(() => undefined);
    },
  };
  return follower;
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
