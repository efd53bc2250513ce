import type { Command } from 'commander';
import type { Context } from '../context.js';
import { CliError } from '../client.js';
import { checkRepo } from '../preflight.js';

interface Connection { id: string; workspaceId: string; provider: string; config: Record<string, string>; webhookPath?: string }

type Run = (cmd: Command, fn: (ctx: Context) => Promise<void>) => Promise<void>;
type Provider = 'github' | 'linear' | 'vercel';

/** Environment variables a token is read from, first found wins (after --token and --token-stdin). */
export const TOKEN_ENV: Record<Provider, string[]> = {
  github: ['ENGRAM_GITHUB_TOKEN', 'GITHUB_TOKEN'],
  linear: ['ENGRAM_LINEAR_API_KEY', 'LINEAR_API_KEY'],
  vercel: ['ENGRAM_VERCEL_TOKEN', 'VERCEL_TOKEN'],
};

interface TokenOptions { token?: string; tokenStdin?: boolean }

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** `--token`, else `--token-stdin`, else the provider's variables: never printed, and not in `ps` unless --token. */
export async function providerToken(provider: Provider, o: TokenOptions, env: NodeJS.ProcessEnv, stdin: () => Promise<string> = readStdin): Promise<string> {
  if (o.token && o.tokenStdin) throw new CliError('give the token one way: --token or --token-stdin, not both', 'USAGE');
  if (o.token) return o.token;
  if (o.tokenStdin) {
    const token = await stdin();
    if (!token) throw new CliError('--token-stdin: nothing on stdin (pipe the token in, e.g. `gh auth token | engram connect github ... --token-stdin`)', 'USAGE');
    return token;
  }
  for (const name of TOKEN_ENV[provider]) if (env[name]) return env[name]!;
  throw new CliError(`no ${provider} token: pipe it with --token-stdin, set ${TOKEN_ENV[provider].join(' or ')}, or pass --token (visible in ps and shell history)`, 'USAGE');
}

const compact = (o: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));

/** The server checks the token against the provider and refuses a duplicate; tokens are encrypted at rest, never printed. */
async function connect(ctx: Context, body: { workspaceId: string; provider: Provider; token: string; webhookSecret?: string; config: Record<string, string>; verify: boolean }) {
  const c = await ctx.client.post<Connection>('/admin/connections', body);
  ctx.out.result(c, () =>
    [
      `connected ${c.provider} (${Object.values(c.config).join(', ')}) as ${c.id} in ${c.workspaceId}${body.verify ? ' (token checked)' : ''}`,
      `start a backfill: engram backfill --connection ${c.id}`,
      ...(c.webhookPath ? [`webhooks: POST ${c.webhookPath}`] : []),
    ].join('\n'),
  );
}

const tokenHelp = (provider: Provider, what: string) => `${what} (visible in ps and shell history: prefer --token-stdin or $${TOKEN_ENV[provider].join('/$')})`;

export function connectCommands(program: Command, run: Run): void {
  const root = program
    .command('connect')
    .description('connect a provider to a workspace: the token is checked against the provider first, encrypted at rest and never printed')
    .addHelpText('after', '\nTokens: --token-stdin reads the token from stdin; else $ENGRAM_GITHUB_TOKEN/$GITHUB_TOKEN, $ENGRAM_LINEAR_API_KEY/$LINEAR_API_KEY, $ENGRAM_VERCEL_TOKEN/$VERCEL_TOKEN; --token last.');
  const shared = (c: Command) => c.option('--token-stdin', 'read the token from stdin').option('--no-verify', 'save without checking the token against the provider');

  shared(
    root
      .command('github')
      .description('sync a GitHub repository: pull requests, issues, comments, commits, discussions and Markdown docs (token needs read access to the repository: classic "repo" scope for a private one)')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--repo <owner/name>', 'repository, e.g. prettier/prettier')
      .option('--token <token>', tokenHelp('github', 'GitHub token'))
      .option('--base-url <url>', 'REST API base (GitHub Enterprise Server: https://<host>/api/v3)')
      .option('--webhook-secret <secret>', 'secret GitHub signs webhook deliveries with'),
  ).action((o: { workspace: string; repo: string; baseUrl?: string; webhookSecret?: string; verify: boolean } & TokenOptions, cmd: Command) =>
    run(cmd, async (ctx) => {
      checkRepo(o.repo);
      const token = await providerToken('github', o, process.env);
      await connect(ctx, { workspaceId: o.workspace, provider: 'github', token, verify: o.verify, ...compact({ webhookSecret: o.webhookSecret }), config: compact({ repo: o.repo, baseUrl: o.baseUrl }) });
    }),
  );
  shared(
    root
      .command('linear')
      .description('sync a Linear workspace (or one team): issues, comments, projects (a personal API key)')
      .requiredOption('--workspace <id>', 'workspace id')
      .option('--token <token>', tokenHelp('linear', 'Linear API key'))
      .option('--team-key <key>', 'only this team, e.g. ENG')
      .option('--api-url <url>', 'GraphQL endpoint')
      .option('--webhook-secret <secret>', 'Linear webhook signing secret'),
  ).action((o: { workspace: string; teamKey?: string; apiUrl?: string; webhookSecret?: string; verify: boolean } & TokenOptions, cmd: Command) =>
    run(cmd, async (ctx) => {
      const token = await providerToken('linear', o, process.env);
      await connect(ctx, { workspaceId: o.workspace, provider: 'linear', token, verify: o.verify, ...compact({ webhookSecret: o.webhookSecret }), config: compact({ teamKey: o.teamKey, apiUrl: o.apiUrl }) });
    }),
  );
  shared(
    root
      .command('vercel')
      .description('sync a Vercel project: deployments and their build logs (an access token that can read the project)')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--project <id>', 'Vercel project id (prj_...)')
      .option('--token <token>', tokenHelp('vercel', 'Vercel token'))
      .option('--team <id>', 'Vercel team id, for a team project')
      .option('--base-url <url>', 'REST API base')
      .option('--webhook-secret <secret>', 'Vercel webhook secret'),
  ).action((o: { workspace: string; project: string; team?: string; baseUrl?: string; webhookSecret?: string; verify: boolean } & TokenOptions, cmd: Command) =>
    run(cmd, async (ctx) => {
      const token = await providerToken('vercel', o, process.env);
      await connect(ctx, {
        workspaceId: o.workspace, provider: 'vercel', token, verify: o.verify, ...compact({ webhookSecret: o.webhookSecret }), config: compact({ projectId: o.project, teamId: o.team, baseUrl: o.baseUrl }),
      });
    }),
  );
}
