import type { ActorRef } from '@engram/contracts';
import type { ActorIdentity } from '@engram/stores';

/**
 * How a provider names a person, as identities that join actors across sources: the login per
 * provider, the e-mail, and the full name. A one-word name ("alex") is too common to prove two
 * accounts are one person, so only names of two or more words join actors.
 */
export function normalizeName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

export function identitiesOf(ref: ActorRef): ActorIdentity[] {
  const out: ActorIdentity[] = [];
  if (ref.login?.trim()) out.push({ kind: `login:${ref.provider}`, value: ref.login.trim().toLowerCase() });
  const email = ref.email?.trim().toLowerCase();
  if (email && email.includes('@')) out.push({ kind: 'email', value: email });
  const name = ref.name ? normalizeName(ref.name) : '';
  if (name.includes(' ')) out.push({ kind: 'name', value: name });
  return out;
}

const BOT_LOGINS: ReadonlySet<string> = new Set([
  'github', 'web-flow', 'github-actions', 'dependabot', 'dependabot-preview', 'renovate', 'renovate-bot', 'greenkeeper',
  'snyk-bot', 'codecov', 'imgbot', 'mergify', 'allcontributors', 'vercel', 'netlify', 'linear', 'stale', 'pre-commit-ci',
]);
const BOT_EMAILS: ReadonlySet<string> = new Set(['noreply@github.com', 'bot@renovateapp.com', 'support@dependabot.com']);

/** Obvious automation: `[bot]` accounts, GitHub's web-flow committer, dependency bots. */
export function isBotRef(ref: ActorRef): boolean {
  const login = ref.login?.trim().toLowerCase() ?? '';
  const name = ref.name?.trim().toLowerCase() ?? '';
  const email = ref.email?.trim().toLowerCase() ?? '';
  if (/\[bot\]$/.test(login) || /\[bot\]$/.test(name) || /\[bot\]@users\.noreply\.github\.com$/.test(email)) return true;
  if (BOT_LOGINS.has(login) || BOT_EMAILS.has(email)) return true;
  return login === '' && (BOT_LOGINS.has(name) || name === 'github actions');
}

/** Lower-cased logins and names of an item's actors: what the `actorNames` filter matches. */
export function actorNamesOf(refs: readonly ActorRef[]): string[] {
  const names = new Set<string>();
  for (const r of refs) {
    if (r.login?.trim()) names.add(r.login.trim().toLowerCase());
    if (r.name?.trim()) names.add(r.name.trim().toLowerCase().replace(/\s+/g, ' '));
  }
  return [...names].sort();
}

/**
 * How good a display name is: a login 0, a one-word name 1, a full name 2. `logins` are the
 * actor's known logins (lower-case), so a stored name equal to a login counts as a login.
 */
export function displayNameScore(name: string, logins: ReadonlySet<string>): number {
  if (logins.has(name.trim().toLowerCase())) return 0;
  return /\s/.test(name.trim()) ? 2 : 1;
}

export const displayNameOf = (ref: ActorRef): string => ref.name?.trim() || ref.login?.trim() || ref.email?.trim() || 'unknown';
