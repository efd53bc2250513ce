/**
 * `engram`: the operator CLI, a client of the server's `/admin` endpoints. Every command accepts `--json`
 * and then prints exactly one JSON object on stdout; errors go to stderr with a non-zero exit.
 */
import { Command } from 'commander';
import { createAdminClient, defaultUrl, resolveAdminToken, type GlobalOptions } from './client.js';
import { backfillCommand } from './commands/backfill.js';
import { connectCommands } from './commands/connect.js';
import { importCommand } from './commands/import.js';
import { statusCommand } from './commands/status.js';
import { workspaceCommands } from './commands/workspace.js';
import type { Context } from './context.js';
import { createOutput, reportError } from './output.js';

const program = new Command('engram')
  .description('Engram operator CLI')
  .option('--url <url>', 'server address', defaultUrl(process.env))
  .option('--admin-token <token>', 'admin token (default: $ENGRAM_ADMIN_TOKEN or <ENGRAM_DATA_DIR or ./.data>/admin-token)')
  .option('--json', 'print one JSON object on stdout')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });

async function run(cmd: Command, fn: (ctx: Context) => Promise<void>): Promise<void> {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const out = createOutput(Boolean(g.json));
  try {
    const client = createAdminClient({ url: g.url, token: resolveAdminToken(g.adminToken, process.env) });
    await fn({ client, out });
  } catch (err) {
    reportError(err, out.json);
  }
}

workspaceCommands(program, run);
connectCommands(program, run);
backfillCommand(program, run);
statusCommand(program, run);
importCommand(program, run);

program.parseAsync(process.argv).catch((err: unknown) => reportError(err, process.argv.includes('--json')));
