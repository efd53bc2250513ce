/** Checks a command can make before it sends anything large: the workspace exists, the repo is `owner/name`. */
import { CliError, type AdminClient } from './client.js';

/** The same rule as the server's (`owner/name`, GitHub's allowed characters). */
export const REPO_PATTERN = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/;

export function checkRepo(repo: string): void {
  if (!REPO_PATTERN.test(repo)) throw new CliError(`--repo ${JSON.stringify(repo)} is not "owner/name" (e.g. prettier/prettier)`, 'USAGE', null, { field: 'repo' });
}

export async function checkWorkspace(client: AdminClient, workspaceId: string): Promise<void> {
  const { workspaces } = await client.get<{ workspaces: { id: string }[] }>('/admin/workspaces');
  if (!workspaces.some((w) => w.id === workspaceId)) {
    throw new CliError(`workspace ${workspaceId} not found on this server (list them with: engram workspace list)`, 'NOT_FOUND', 404, { resource: 'workspace' });
  }
}
