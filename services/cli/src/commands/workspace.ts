import type { Command } from 'commander';
import type { Context } from '../context.js';

interface Workspace { id: string; name: string; createdAt?: string }
interface KeyInfo { id: string; workspaceId: string; prefix: string; createdAt: string; revokedAt: string | null }

export function workspaceCommands(program: Command, run: (cmd: Command, fn: (ctx: Context) => Promise<void>) => Promise<void>): void {
  const ws = program.command('workspace').description('workspaces: create, list, delete');
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

  ws.command('delete')
    .description('delete a workspace and everything in it (keys, connections, items, vectors); cannot be undone')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--yes', 'confirm the deletion')
    .action((opts: { workspace: string }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const r = await client.delete<{ id: string; items: number; connections: number }>(`/admin/workspaces/${encodeURIComponent(opts.workspace)}`);
        out.result(r, () => `deleted workspace ${r.id}: ${r.items} items, ${r.connections} connections`);
      }),
    );

  program
    .command('connection')
    .description('connections')
    .command('delete')
    .description('delete a connection (its credentials and sync state; the items it synced stay)')
    .requiredOption('--connection <id>', 'connection id')
    .action((opts: { connection: string }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const r = await client.delete<{ id: string }>(`/admin/connections/${encodeURIComponent(opts.connection)}`);
        out.result(r, () => `deleted connection ${r.id}`);
      }),
    );

  const key = program.command('key').description('API keys: create, list, revoke, rotate');
  key
    .command('list')
    .description('list API keys (id, prefix, created, revoked; never the key)')
    .option('--workspace <id>', 'only this workspace')
    .action((opts: { workspace?: string }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const { keys } = await client.get<{ keys: KeyInfo[] }>(`/admin/keys${opts.workspace ? `?workspaceId=${encodeURIComponent(opts.workspace)}` : ''}`);
        out.result({ keys }, () => (keys.length ? keys.map((k) => `${k.id}  ${k.prefix}...  ${k.workspaceId}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`).join('\n') : 'no keys'));
      }),
    );
  key
    .command('revoke')
    .description('revoke an API key (effective on its next request)')
    .requiredOption('--key <keyId>', 'key id (from key list)')
    .action((opts: { key: string }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const r = await client.delete<KeyInfo>(`/admin/keys/${encodeURIComponent(opts.key)}`);
        out.result(r, () => `revoked ${r.id} (${r.prefix}...) at ${r.revokedAt}`);
      }),
    );
  key
    .command('rotate')
    .description('issue a new key for the same workspace and revoke this one')
    .requiredOption('--key <keyId>', 'key id (from key list)')
    .action((opts: { key: string }, cmd: Command) =>
      run(cmd, async ({ client, out }) => {
        const r = await client.post<{ key: string; keyId: string; workspaceId: string; revokedKeyId: string }>(`/admin/keys/${encodeURIComponent(opts.key)}/rotate`, {});
        out.result(r, () => `${r.key}\n(new API key ${r.keyId} for ${r.workspaceId}; ${r.revokedKeyId} is revoked; store it now, it is not shown again)`);
      }),
    );
  key
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
