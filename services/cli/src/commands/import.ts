import { readFile } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { CliError } from '../client.js';
import { formatDuration, sleep } from '../output.js';
import { checkRepo, checkWorkspace } from '../preflight.js';

interface Staged { importId: string; received: number; staged: number; inserted: number; invalid: number; errors: { index: number; message: string }[] }
interface Progress { id: string; events: number; indexed: number; failed: number; pending: number; invalid: number; received: number; errors: { index: number; message: string }[] }

export function importCommand(program: Command, run: (cmd: Command, fn: (ctx: Context) => Promise<void>) => Promise<void>): void {
  program
    .command('import')
    .description('import an export file')
    .command('github')
    .description('a JSON array or JSON Lines of GitHub REST objects with a `type` (pull_request, issue, issue_comment, commit, discussion)')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--repo <owner/name>', 'repository the objects belong to')
    .requiredOption('--file <path>', 'export file')
    .option('--wait', 'return only when every item is indexed (searchable)')
    .option('--poll-ms <ms>', 'progress refresh interval', (v) => Number(v), 500)
    .action((o: { workspace: string; repo: string; file: string; wait?: boolean; pollMs: number }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        checkRepo(o.repo);
        await checkWorkspace(client, o.workspace);
        let content: string;
        try {
          content = await readFile(o.file, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read ${o.file}: ${(err as Error).message}`, 'FILE_UNREADABLE');
        }
        out.note(`uploading ${o.file} (${(Buffer.byteLength(content) / 1e6).toFixed(1)} MB)...`);
        const staged = await client.post<Staged>('/admin/imports', { workspaceId: o.workspace, provider: 'github', repo: o.repo, content });
        for (const e of staged.errors.slice(0, 5)) out.note(`invalid object #${e.index}: ${e.message}`);
        if (staged.invalid > 5) out.note(`... and ${staged.invalid - 5} more invalid objects (GET /admin/imports/${staged.importId} lists the first 50)`);
        // Any entry that did not go in makes the command fail, so a script notices (the good ones are in).
        const failInvalid = () => {
          if (staged.invalid > 0) {
            process.stderr.write(`engram: ${staged.invalid} of ${staged.received} objects were invalid and not imported\n`);
            process.exitCode = 1;
          }
        };
        if (!o.wait) {
          out.result(staged, () => `import ${staged.importId}: ${staged.received} objects, ${staged.staged} staged (${staged.inserted} new), ${staged.invalid} invalid`);
          failInvalid();
          return;
        }
        const bar = !out.json && process.stderr.isTTY
          ? new cliProgress.SingleBar({ format: 'indexing |{bar}| {value}/{total} items | {failed} failed | ETA {etaText}', hideCursor: true, stream: process.stderr }, cliProgress.Presets.shades_classic)
          : null;
        bar?.start(Math.max(staged.staged, 1), 0, { failed: 0, etaText: '?' });
        let p: Progress;
        const eta = etaEstimator();
        for (;;) {
          p = await client.get<Progress>(`/admin/imports/${encodeURIComponent(staged.importId)}`);
          bar?.setTotal(Math.max(p.events, 1));
          bar?.update(p.indexed + p.failed, { failed: p.failed, etaText: formatDuration(eta(p.indexed + p.failed, p.pending)) });
          if (p.pending === 0) break;
          await sleep(o.pollMs);
        }
        bar?.stop();
        const result = { imported: p.events, indexed: p.indexed, failed: p.failed, invalid: p.invalid, importId: p.id };
        out.result(result, () => `imported ${result.imported} items: ${result.indexed} indexed, ${result.failed} failed, ${result.invalid} invalid (import ${result.importId})`);
        if (p.failed > 0) {
          process.stderr.write(`engram: ${p.failed} items failed to index\n`);
          process.exitCode = 1;
        }
        failInvalid();
      }),
    );
}

/** Seconds left from the indexing rate over the last minute of polls (null until it has moved). */
export function etaEstimator(windowMs = 60_000, now: () => number = Date.now) {
  const samples: { at: number; done: number }[] = [];
  return (done: number, pending: number): number | null => {
    const at = now();
    samples.push({ at, done });
    while (samples.length > 2 && at - samples[0]!.at > windowMs) samples.shift();
    const first = samples[0]!;
    const rate = at > first.at ? (done - first.done) / ((at - first.at) / 1000) : 0;
    if (pending === 0) return 0;
    return rate > 0 ? pending / rate : null;
  };
}
