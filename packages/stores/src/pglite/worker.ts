/**
 * The PGlite thread: the embedded database runs here, so its statements (WebAssembly, synchronous once
 * started) never hold the event loop that answers HTTP. One instance, one connection: statements run in
 * the order they arrive, and a transaction's statements run inside PGlite's own `transaction`, while
 * statements outside it wait for it as they would on the main thread, with one exception: an API
 * request's read (`shareTx`) runs inside the open transaction, between its statements, under a savepoint.
 * A transaction's statements come one at a time from the main thread, and while that thread is busy
 * answering searches a batch write holds the connection for hundreds of ms doing nothing; a search's
 * read waiting for its commit made 16 concurrent searches queue behind every import batch. Such a read
 * sees the transaction's writes so far (rows the batch may still roll back): what keeps state built from
 * rows (the search read model, snapshots) reads with `readCommitted` instead.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { isReadOnlySql } from '../queryable.js';
import { openPglite } from './open.js';
import type { PgliteReply, PgliteRequest } from './protocol.js';

const port = parentPort!;
/** Shared with the main thread: the WebAssembly heap's size in bytes, kept current after each statement. */
const heapCell = (workerData as { heapCell?: Float64Array }).heapCell ?? new Float64Array(1);
const reply = (message: PgliteReply): void => port.postMessage(message);
const failure = (id: number, err: unknown): PgliteReply => {
  const e = err instanceof Error ? err : new Error(String(err));
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v;
  return { id, ok: false, error: { message: e.message, name: e.name, fields } };
};

/** An open transaction: its statements wait here until PGlite runs its callback. */
interface OpenTx {
  pending: PgliteRequest[];
  /** API requests' reads run between the transaction's statements, ahead of them. */
  shared: Extract<PgliteRequest, { op: 'query' }>[];
  wake: (() => void) | null;
  /** Holds the connection (its callback runs) and has not yet taken its commit or rollback. */
  running: boolean;
}

async function main(): Promise<void> {
  let lite: PGlite;
  try {
    const { dir, sharedBuffersMb } = workerData as { dir: string; sharedBuffersMb?: number };
    lite = await openPglite(dir, { sharedBuffersMb });
  } catch (err) {
    reply({ id: 0, ready: false, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  const open = new Map<number, OpenTx>();
  heapCell[0] = heapBytes(lite);

  const run = async (target: PGlite | Transaction, m: Extract<PgliteRequest, { op: 'query' }>): Promise<void> => {
    try {
      const t0 = performance.now();
      const heapBefore = heapBytes(lite);
      const res = await target.query(m.sql, m.params, m.blob ? { blob: new Blob([m.blob]) } : undefined);
      const sql = m.sql.replace(/\s+/g, ' ').slice(0, 160);
      logIfSlow('slowStatementMs', t0, { rows: res.rows.length, interactive: !!m.interactive, sql });
      // The WebAssembly heap never shrinks: a statement that grew it is what the process's memory holds on to.
      const heapAfter = heapBytes(lite);
      heapCell[0] = heapAfter;
      if (SLOW_MS > 0 && heapAfter > heapBefore) console.error(JSON.stringify({ pgliteHeapGrewMb: mb(heapAfter - heapBefore), pgliteHeapMb: mb(heapAfter), rows: res.rows.length, sql }));
      reply({ id: m.id, ok: true, rows: res.rows, affectedRows: res.affectedRows ?? res.rows.length });
    } catch (err) {
      reply(failure(m.id, err));
    }
  };

  /**
   * A read borrowed into the open transaction, under a savepoint rolled back after it (a read changes
   * nothing; a failed one leaves the transaction as it was). When the transaction has already failed
   * (the savepoint cannot be set), the read goes back to wait for it like any other.
   */
  const runShared = async (tx: Transaction, m: Extract<PgliteRequest, { op: 'query' }>): Promise<void> => {
    try {
      await tx.query('SAVEPOINT engram_shared_read');
    } catch {
      interactive.unshift({ ...m, shareTx: false });
      return;
    }
    await run(tx, m);
    await tx.query('ROLLBACK TO SAVEPOINT engram_shared_read');
    await tx.query('RELEASE SAVEPOINT engram_shared_read');
  };

  /** Runs the transaction's statements as they come, until `commit` (resolves) or `rollback` (throws). */
  const drive = async (tx: Transaction, state: OpenTx): Promise<void> => {
    state.running = true;
    for (;;) {
      const read = state.shared.shift();
      if (read) {
        await runShared(tx, read);
        continue;
      }
      const m = state.pending.shift();
      if (!m) {
        await new Promise<void>((resolve) => (state.wake = resolve));
        state.wake = null;
        continue;
      }
      if (m.op === 'query') await run(tx, m);
      else if (m.op === 'commit' || m.op === 'rollback') {
        state.running = false;
        if (m.op === 'rollback') throw new RolledBack();
        return;
      }
    }
  };

  // One statement (or one whole transaction) at a time, in order, except that a plain read waiting to
  // run goes before writes that wait: a search's read waits for the statement or transaction running,
  // never for an import's queue of writes behind it. Urgent background work (`runUrgent`: the step of an
  // import that runs one batch at a time, which every other batch waits for) goes before other
  // background work, after API requests.
  const interactive: PgliteRequest[] = [];
  const urgent: PgliteRequest[] = [];
  const reads: PgliteRequest[] = [];
  const others: PgliteRequest[] = [];
  let busy = false;
  const perform = async (m: PgliteRequest): Promise<void> => {
    switch (m.op) {
      case 'query':
        return run(lite, m);
      case 'exec':
        return lite.exec(m.sql).then(
          () => {
            heapCell[0] = heapBytes(lite);
            reply({ id: m.id, ok: true });
          },
          (err: unknown) => reply(failure(m.id, err)),
        );
      case 'begin': {
        const state = open.get(m.tx)!;
        const t0 = performance.now();
        return lite
          .transaction((tx) => drive(tx, state))
          .then(
            () => reply({ id: m.id, ok: true }),
            (err: unknown) => reply(err instanceof RolledBack ? { id: m.id, ok: true } : failure(m.id, err)),
          )
          .finally(() => {
            logIfSlow('slowTransactionMs', t0, { interactive: !!m.interactive });
            state.running = false;
            // Reads borrowed in after the transaction stopped taking them wait like any other.
            interactive.unshift(...state.shared.map((r) => ({ ...r, shareTx: false })));
            state.shared.length = 0;
            open.delete(m.tx);
          });
      }
      case 'close':
        return lite.close().then(
          () => reply({ id: m.id, ok: true }),
          (err: unknown) => reply(failure(m.id, err)),
        );
      default:
        return;
    }
  };
  // Reads go first, but never more than READS_AHEAD in a row while a write waits: background jobs'
  // writes (expertise, re-cluster swaps) must finish, or the index never comes to rest.
  // An API request's statements (marked interactive) go before background jobs', again at most
  // INTERACTIVE_AHEAD in a row while background work waits.
  let readsInARow = 0;
  let interactiveInARow = 0;
  const pump = (): void => {
    if (busy) return;
    const background = urgent.length + reads.length + others.length > 0;
    let next: PgliteRequest | undefined;
    if (interactive.length > 0 && (!background || interactiveInARow < INTERACTIVE_AHEAD)) {
      next = interactive.shift();
      interactiveInARow++;
    } else if (urgent.length > 0) {
      interactiveInARow = 0;
      next = urgent.shift();
    } else {
      interactiveInARow = 0;
      const takeWrite = others.length > 0 && (reads.length === 0 || readsInARow >= READS_AHEAD);
      next = takeWrite ? others.shift() : reads.shift();
      readsInARow = takeWrite ? 0 : readsInARow + 1;
    }
    if (!next) return;
    busy = true;
    void perform(next).finally(() => {
      busy = false;
      pump();
    });
  };

  port.on('message', (m: PgliteRequest) => {
    if ((m.op === 'query' && m.tx !== undefined) || m.op === 'commit' || m.op === 'rollback') {
      // Inside an open transaction (which holds the connection): straight to it. `commit` and
      // `rollback` get no answer of their own: the `begin` they close is answered.
      const state = open.get(m.tx!);
      if (!state) return reply(failure(m.id, new Error(`no open transaction ${m.tx}`)));
      state.pending.push(m);
      state.wake?.();
      return;
    }
    // An API request's read while a transaction holds the connection: into it, between its statements.
    if (m.op === 'query' && m.shareTx && isReadOnlySql(m.sql)) {
      const holder = [...open.values()].find((s) => s.running);
      if (holder) {
        holder.shared.push(m);
        holder.wake?.();
        return;
      }
    }
    // A transaction's statements may arrive before it starts: they wait in its state.
    if (m.op === 'begin') open.set(m.tx, { pending: [], shared: [], wake: null, running: false });
    if ((m.op === 'query' || m.op === 'begin') && m.interactive) interactive.push(m);
    else if ((m.op === 'query' || m.op === 'begin') && m.urgent) urgent.push(m);
    else (m.op === 'query' && isReadOnlySql(m.sql) ? reads : others).push(m);
    pump();
  });
  reply({ id: 0, ready: true });
}

class RolledBack extends Error {}

/**
 * `PGLITE_LOG_SLOW_MS`: statements and transactions slower than this are logged to stderr (0: none); so
 * is, while it is set, every statement that grew the WebAssembly heap.
 */
const SLOW_MS = (workerData as { logSlowMs?: number }).logSlowMs ?? 0;

/** One JSON line on stderr for work that began at `t0` and took longer than `PGLITE_LOG_SLOW_MS`. */
function logIfSlow(what: 'slowStatementMs' | 'slowTransactionMs', t0: number, fields: Record<string, unknown>): void {
  const took = performance.now() - t0;
  if (SLOW_MS > 0 && took > SLOW_MS) console.error(JSON.stringify({ [what]: Math.round(took), time: Date.now(), ...fields }));
}

/** The size of PGlite's WebAssembly memory (0 where this build does not expose it). */
const heapBytes = (lite: PGlite): number => (lite as unknown as { Module?: { HEAPU8?: Uint8Array } }).Module?.HEAPU8?.length ?? 0;
const mb = (bytes: number): number => Math.round(bytes / 1e5) / 10;

/** An API request's statements run ahead of waiting background work at most this many times in a row. */
const INTERACTIVE_AHEAD = 16;
/** Reads run ahead of a waiting write at most this many times in a row. */
const READS_AHEAD = 4;

void main();
