/** Web <-> API addresses: github.com and GitHub Enterprise Server. */

export const DEFAULT_API_URL = 'https://api.github.com';

/** `https://api.github.com` -> `https://github.com`; `https://ghe.example.com/api/v3` -> `https://ghe.example.com`. */
export function webUrlFor(apiUrl: string): string {
  const u = new URL(apiUrl);
  if (u.hostname === 'api.github.com') return 'https://github.com';
  if (u.hostname.startsWith('api.') && u.hostname.endsWith('.ghe.com')) return `${u.protocol}//${u.hostname.slice(4)}`;
  return u.origin;
}

export type GitHubWebTarget =
  | { kind: 'pull'; number: number }
  | { kind: 'issue'; number: number }
  | { kind: 'discussion'; number: number }
  | { kind: 'commit'; sha: string };

/** Parses a human-facing URL of `repo` on the `webUrl` host; null for anything else. */
export function parseGitHubWebUrl(url: string, webUrl: string, repo: string): GitHubWebTarget | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const web = new URL(webUrl);
  if (u.host.toLowerCase() !== web.host.toLowerCase()) return null;
  const prefix = web.pathname.replace(/\/+$/, '');
  if (!u.pathname.startsWith(`${prefix}/`)) return null;
  const [owner, name, kind, id] = u.pathname.slice(prefix.length + 1).split('/');
  if (!owner || !name || !kind || !id || `${owner}/${name}`.toLowerCase() !== repo.toLowerCase()) return null;
  if ((kind === 'pull' || kind === 'pulls') && /^\d+$/.test(id)) return { kind: 'pull', number: Number(id) };
  if (kind === 'issues' && /^\d+$/.test(id)) return { kind: 'issue', number: Number(id) };
  if (kind === 'discussions' && /^\d+$/.test(id)) return { kind: 'discussion', number: Number(id) };
  if (kind === 'commit' && /^[0-9a-f]{7,40}$/i.test(id)) return { kind: 'commit', sha: id.toLowerCase() };
  return null;
}
