/**
 * `engram`: the operator CLI, a client of the server's `/admin` endpoints (and `engram mcp`, a client of
 * `/v1`). Every command accepts `--json` and then prints exactly one JSON object on stdout; errors go to
 * stderr with the exit codes in `output.ts`.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { createAdminClient, defaultUrl, resolveAdminToken, type GlobalOptions } from './client.js';
import { backfillCommand } from './commands/backfill.js';
import { connectCommands } from './commands/connect.js';
import { importCommand } from './commands/import.js';
import { mcpCommand } from './commands/mcp.js';
import { statusCommand } from './commands/status.js';
import { workspaceCommands } from './commands/workspace.js';
import type { Context } from './context.js';
import { createOutput, EXIT, reportError } from './output.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('engram')
  .description('Engram operator CLI')
  .version(version, '-V, --version', 'print the CLI version')
  .option('--url <url>', 'server address: $ENGRAM_URL, else http://localhost:$PORT (3000 when PORT is unset)', defaultUrl(process.env))
  .option('--admin-token <token>', 'admin token (default: $ENGRAM_ADMIN_TOKEN or <ENGRAM_DATA_DIR or ./.data>/admin-token)')
  .option('--json', 'print one JSON object on stdout')
  .showHelpAfterError()
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text) });

async function run(cmd: Command, fn: (ctx: Context) => Promise<void>): Promise<void> {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const out = createOutput(Boolean(g.json));
  try {
    const admin = resolveAdminToken(g.adminToken, process.env);
    const client = createAdminClient({ url: g.url, token: admin.token, tokenSource: admin.source });
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
mcpCommand(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    // Help and --version exit 0; a usage error (unknown option, missing flag) exits 2, its message already printed.
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return;
  }
  reportError(err, process.argv.includes('--json'));
});
