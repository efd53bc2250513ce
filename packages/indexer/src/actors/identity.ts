import { isAutomationName, type ActorRef } from '@engram/contracts';
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

const BOT_EMAILS: ReadonlySet<string> = new Set(['noreply@github.com', 'bot@renovateapp.com', 'support@dependabot.com']);

/**
 * Automation, not a person (`isAutomationName` in `@engram/contracts` has the rule): the provider's own
 * account type, a login or name that says "bot" (`[bot]` accounts, "StepSecurity Bot", `renovate-bot`),
 * a well-known automation account (GitHub's web-flow committer, dependency bots), or a bot's e-mail.
 */
export function isBotRef(ref: ActorRef): boolean {
  if (ref.bot === true) return true;
  const email = ref.email?.trim().toLowerCase() ?? '';
  if (/\[bot\]@users\.noreply\.github\.com$/.test(email) || BOT_EMAILS.has(email)) return true;
  const login = ref.login?.trim() ?? '';
  return isAutomationName(login) || isAutomationName(ref.name, { known: login === '' });
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
