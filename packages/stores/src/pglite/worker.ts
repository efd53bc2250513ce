/**
 * The PGlite thread: the embedded database runs here, so its statements (WebAssembly, synchronous once
 * started) never hold the event loop that answers HTTP. One instance, one connection: statements run in
 * the order they arrive, and a transaction's statements run inside PGlite's own `transaction`, while
 * statements outside it wait for it as they would on the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { isReadOnlySql } from '../queryable.js';
import type { PgliteReply, PgliteRequest } from './protocol.js';

const port = parentPort!;
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
  wake: (() => void) | null;
}

async function main(): Promise<void> {
  let lite: PGlite;
  try {
    lite = await PGlite.create((workerData as { dir: string }).dir, { extensions: { vector } });
  } catch (err) {
    reply({ id: 0, ready: false, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  const open = new Map<number, OpenTx>();

  const run = async (target: PGlite | Transaction, m: Extract<PgliteRequest, { op: 'query' }>): Promise<void> => {
    try {
      const res = await target.query(m.sql, m.params);
      reply({ id: m.id, ok: true, rows: res.rows, affectedRows: res.affectedRows ?? res.rows.length });
    } catch (err) {
      reply(failure(m.id, err));
    }
  };

  /** Runs the transaction's statements as they come, until `commit` (resolves) or `rollback` (throws). */
  const drive = async (tx: Transaction, state: OpenTx): Promise<void> => {
    for (;;) {
      const m = state.pending.shift();
      if (!m) {
        await new Promise<void>((resolve) => (state.wake = resolve));
        state.wake = null;
        continue;
      }
      if (m.op === 'query') await run(tx, m);
      else if (m.op === 'commit') return;
      else if (m.op === 'rollback') throw new RolledBack();
    }
  };

  // One statement (or one whole transaction) at a time, in order, except that a plain read waiting to
  // run goes before writes that wait: a search's read waits for the statement or transaction running,
  // never for an import's queue of writes behind it.
  const interactive: PgliteRequest[] = [];
  const reads: PgliteRequest[] = [];
  const others: PgliteRequest[] = [];
  let busy = false;
  const perform = async (m: PgliteRequest): Promise<void> => {
    switch (m.op) {
      case 'query':
        return run(lite, m);
      case 'exec':
        return lite.exec(m.sql).then(
          () => reply({ id: m.id, ok: true }),
          (err: unknown) => reply(failure(m.id, err)),
        );
      case 'begin': {
        const state = open.get(m.tx)!;
        return lite
          .transaction((tx) => drive(tx, state))
          .then(
            () => reply({ id: m.id, ok: true }),
            (err: unknown) => reply(err instanceof RolledBack ? { id: m.id, ok: true } : failure(m.id, err)),
          )
          .finally(() => open.delete(m.tx));
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
    const background = reads.length + others.length > 0;
    let next: PgliteRequest | undefined;
    if (interactive.length > 0 && (!background || interactiveInARow < INTERACTIVE_AHEAD)) {
      next = interactive.shift();
      interactiveInARow++;
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
    // A transaction's statements may arrive before it starts: they wait in its state.
    if (m.op === 'begin') open.set(m.tx, { pending: [], wake: null });
    if ((m.op === 'query' || m.op === 'begin') && m.interactive) interactive.push(m);
    else (m.op === 'query' && isReadOnlySql(m.sql) ? reads : others).push(m);
    pump();
  });
  reply({ id: 0, ready: true });
}

class RolledBack extends Error {}

/** An API request's statements run ahead of waiting background work at most this many times in a row. */
const INTERACTIVE_AHEAD = 16;
/** Reads run ahead of a waiting write at most this many times in a row. */
const READS_AHEAD = 4;

void main();
