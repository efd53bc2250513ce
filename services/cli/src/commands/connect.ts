import type { Command } from 'commander';
import type { Context } from '../context.js';

interface Connection { id: string; workspaceId: string; provider: string; config: Record<string, string>; webhookPath?: string }

type Run = (cmd: Command, fn: (ctx: Context) => Promise<void>) => Promise<void>;

const compact = (o: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));

/** Tokens go to the server (which encrypts them at rest) and are never printed. */
async function connect(ctx: Context, body: { workspaceId: string; provider: string; token: string; webhookSecret?: string; config: Record<string, string> }) {
  const c = await ctx.client.post<Connection>('/admin/connections', body);
  ctx.out.result(c, () =>
    [
      `connected ${c.provider} (${Object.values(c.config).join(', ')}) as ${c.id} in ${c.workspaceId}`,
      `start a backfill: engram backfill --connection ${c.id}`,
      ...(c.webhookPath ? [`webhooks: POST ${c.webhookPath}`] : []),
    ].join('\n'),
  );
}

export function connectCommands(program: Command, run: Run): void {
  const root = program.command('connect').description('connect a provider to a workspace (tokens are encrypted at rest and never printed)');
  root
    .command('github')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--repo <owner/name>', 'repository')
    .requiredOption('--token <token>', 'GitHub token')
    .option('--base-url <url>', 'REST API base (GitHub Enterprise Server: https://<host>/api/v3)')
    .option('--webhook-secret <secret>', 'secret GitHub signs webhook deliveries with')
    .action((o: { workspace: string; repo: string; token: string; baseUrl?: string; webhookSecret?: string }, cmd: Command) =>
      run(cmd, (ctx) => connect(ctx, { workspaceId: o.workspace, provider: 'github', token: o.token, ...compact({ webhookSecret: o.webhookSecret }), config: compact({ repo: o.repo, baseUrl: o.baseUrl }) })),
    );
  root
    .command('linear')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--token <token>', 'Linear API key')
    .option('--team-key <key>', 'only this team, e.g. ENG')
    .option('--api-url <url>', 'GraphQL endpoint')
    .option('--webhook-secret <secret>', 'Linear webhook signing secret')
    .action((o: { workspace: string; token: string; teamKey?: string; apiUrl?: string; webhookSecret?: string }, cmd: Command) =>
      run(cmd, (ctx) => connect(ctx, { workspaceId: o.workspace, provider: 'linear', token: o.token, ...compact({ webhookSecret: o.webhookSecret }), config: compact({ teamKey: o.teamKey, apiUrl: o.apiUrl }) })),
    );
  root
    .command('vercel')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--project <id>', 'Vercel project id')
    .requiredOption('--token <token>', 'Vercel token')
    .option('--team <id>', 'Vercel team id')
    .option('--base-url <url>', 'REST API base')
    .option('--webhook-secret <secret>', 'Vercel webhook secret')
    .action((o: { workspace: string; project: string; token: string; team?: string; baseUrl?: string; webhookSecret?: string }, cmd: Command) =>
      run(cmd, (ctx) =>
        connect(ctx, { workspaceId: o.workspace, provider: 'vercel', token: o.token, ...compact({ webhookSecret: o.webhookSecret }), config: compact({ projectId: o.project, teamId: o.team, baseUrl: o.baseUrl }) }),
      ),
    );
}
