import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import type { SyncCursor } from '@engram/stores';
import type { Context } from '../context.js';
import { formatDuration, sleep } from '../output.js';

/** A stream's state as `GET /admin/connections/:id` answers it: the stored cursor row plus rate and ETA. */
export type StreamProgress = Omit<SyncCursor, 'cursor'> & { itemsPerSecond: number; etaSeconds: number | null };
interface ConnectionView { id: string; provider: string; streams: StreamProgress[] }

const FINISHED = new Set(['done', 'failed', 'paused']);

/**
 * Sum of the walk's streams: what the bar shows. `total` is null until every stream still running has a
 * provider hint (a sum over only some streams would grow as the others report theirs).
 */
export function summarize(streams: StreamProgress[]) {
  const pages = streams.reduce((n, s) => n + s.pages, 0);
  const items = streams.reduce((n, s) => n + s.items, 0);
  const waits = streams.reduce((n, s) => n + s.rateLimitWaits, 0);
  const waitMs = streams.reduce((n, s) => n + s.rateLimitWaitMs, 0);
  const known = streams.every((s) => FINISHED.has(s.state) || s.totalHint !== null);
  const total = known ? streams.reduce((n, s) => n + (FINISHED.has(s.state) ? s.items : Math.max(s.totalHint ?? 0, s.items)), 0) : null;
  const etas = streams.filter((s) => !FINISHED.has(s.state)).map((s) => s.etaSeconds);
  const eta = etas.length === 0 ? 0 : etas.some((e) => e === null) ? null : Math.max(...(etas as number[]));
  return { pages, items, waits, waitMs, total, eta, done: streams.length > 0 && streams.every((s) => FINISHED.has(s.state)), failed: streams.filter((s) => s.state === 'failed') };
}

export function backfillCommand(program: Command, run: (cmd: Command, fn: (ctx: Context) => Promise<void>) => Promise<void>): void {
  program
    .command('backfill')
    .description('walk a connection\'s full history (resumable), with a live progress bar')
    .requiredOption('--connection <id>', 'connection id')
    .option('--since <date>', 'only objects created or updated at or after this date (ISO)')
    .option('--no-wait', 'start it and return at once')
    .option('--poll-ms <ms>', 'progress refresh interval', (v) => Number(v), 500)
    .action((o: { connection: string; since?: string; wait: boolean; pollMs: number }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const id = encodeURIComponent(o.connection);
        const started = await client.post<{ streams: string[]; since: string | null }>(`/admin/connections/${id}/backfill`, o.since ? { since: o.since } : {});
        if (!o.wait) {
          out.result({ connectionId: o.connection, started: true, streams: started.streams, since: started.since }, () => `backfill started for ${o.connection}: ${started.streams.join(', ')}`);
          return;
        }
        const t0 = Date.now();
        const bar = !out.json && process.stderr.isTTY
          ? new cliProgress.SingleBar(
              { format: 'backfill |{bar}| {value}/{totalText} items | {pages} pages | {waits} rate-limit waits | ETA {etaText}', hideCursor: true, stream: process.stderr },
              cliProgress.Presets.shades_classic,
            )
          : null;
        bar?.start(1, 0, { pages: 0, waits: 0, etaText: '?', totalText: '?' });
        // Once every running stream has reported its size, the total is fixed: it only moves if items overtake it.
        let shownTotal: number | null = null;
        let lastNote = 0;
        let view: ConnectionView;
        let sum: ReturnType<typeof summarize>;
        for (;;) {
          view = await client.get<ConnectionView>(`/admin/connections/${id}`);
          sum = summarize(view.streams.filter((s) => s.mode === 'backfill'));
          if (sum.total !== null) shownTotal = Math.max(shownTotal ?? sum.total, sum.items);
          bar?.setTotal(Math.max(shownTotal ?? sum.items, 1));
          bar?.update(sum.items, { pages: sum.pages, waits: sum.waits, etaText: formatDuration(sum.eta), totalText: shownTotal ?? '?' });
          if (!bar && !out.json && Date.now() - lastNote > 5_000) {
            lastNote = Date.now();
            out.note(`backfill: ${sum.items} items, ${sum.pages} pages, ${sum.waits} rate-limit waits, ETA ${formatDuration(sum.eta)}`);
          }
          if (sum.done) break;
          await sleep(o.pollMs);
        }
        bar?.stop();
        const streams = view.streams.filter((s) => s.mode === 'backfill').map((s) => ({ stream: s.stream, state: s.state, pages: s.pages, items: s.items, rateLimitWaits: s.rateLimitWaits, rateLimitWaitMs: s.rateLimitWaitMs, error: s.error }));
        const result = { connectionId: o.connection, state: sum.failed.length ? 'failed' : 'done', pages: sum.pages, items: sum.items, rateLimitWaits: sum.waits, rateLimitWaitMs: sum.waitMs, durationMs: Date.now() - t0, streams };
        out.result(result, () =>
          [`backfill ${result.state}: ${sum.items} items in ${sum.pages} pages, ${sum.waits} rate-limit waits, ${formatDuration(result.durationMs / 1000)}`, ...streams.map((s) => `  ${s.stream.padEnd(16)} ${s.state.padEnd(8)} ${s.items} items${s.error ? `  (${s.error})` : ''}`)].join('\n'),
        );
        if (sum.failed.length) {
          process.stderr.write(`engram: streams failed: ${sum.failed.map((s) => `${s.stream} (${s.error ?? 'unknown error'})`).join(', ')}\n`);
          process.exitCode = 1;
        }
      }),
    );
}
