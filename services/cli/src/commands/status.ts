import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { StreamProgress } from './backfill.js';

interface Status {
  ready: boolean;
  stores: Record<string, unknown>;
  queues: Record<string, { waiting: number; active: number; delayed: number; failed: number; completed: number }>;
  connections: { id: string; workspaceId: string; provider: string; config: Record<string, string>; status: string; streams: StreamProgress[] }[];
}

export function statusCommand(program: Command, run: (cmd: Command, fn: (ctx: Context) => Promise<void>) => Promise<void>): void {
  program
    .command('status')
    .description('stores, queue depths, and each connection\'s sync state')
    .action((_o: object, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const s = await client.get<Status>('/admin/status');
        out.result(s, () => {
          const lines = [`ready: ${s.ready}`, `stores: ${JSON.stringify(s.stores)}`, 'queues:'];
          for (const [name, d] of Object.entries(s.queues)) lines.push(`  ${name.padEnd(18)} waiting ${d.waiting}  active ${d.active}  delayed ${d.delayed}  failed ${d.failed}`);
          lines.push(`connections: ${s.connections.length}`);
          for (const c of s.connections) {
            lines.push(`  ${c.id}  ${c.provider}  ${Object.values(c.config).join(' ')}  (${c.workspaceId})`);
            for (const st of c.streams) {
              lines.push(`    ${st.mode.padEnd(11)} ${st.stream.padEnd(16)} ${st.state.padEnd(8)} ${st.items} items  ${st.pages} pages  ${st.rateLimitWaits} waits${st.error ? `  ${st.error}` : ''}`);
            }
          }
          return lines.join('\n');
        });
      }),
    );
}
