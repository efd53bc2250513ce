import type { Command } from 'commander';
import type { Context } from '../context.js';

interface Workspace { id: string; name: string; createdAt?: string }

export function workspaceCommands(program: Command, run: (cmd: Command, fn: (ctx: Context) => Promise<void>) => Promise<void>): void {
  const ws = program.command('workspace').description('workspaces: create, list');
  ws.command('create')
    .description('create a workspace')
    .requiredOption('--name <name>', 'workspace name')
    .action((opts: { name: string }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const created = await client.post<Workspace>('/admin/workspaces', { name: opts.name });
        out.result(created, () => `created workspace ${created.id} (${created.name})`);
      }),
    );
  ws.command('list')
    .description('list workspaces')
    .action((_opts: object, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const { workspaces } = await client.get<{ workspaces: Workspace[] }>('/admin/workspaces');
        out.result({ workspaces }, () => (workspaces.length ? workspaces.map((w) => `${w.id}  ${w.name}`).join('\n') : 'no workspaces'));
      }),
    );

  program
    .command('key')
    .description('API keys')
    .command('create')
    .description('create an API key for a workspace (shown once; only its hash is stored)')
    .requiredOption('--workspace <id>', 'workspace id')
    .action((opts: { workspace: string }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const key = await client.post<{ key: string; workspaceId: string; keyId?: string }>(`/admin/workspaces/${encodeURIComponent(opts.workspace)}/keys`, {});
        out.result({ key: key.key, workspaceId: key.workspaceId, ...(key.keyId ? { keyId: key.keyId } : {}) }, () => `${key.key}\n(API key for ${key.workspaceId}: store it now, it is not shown again)`);
      }),
    );
}
