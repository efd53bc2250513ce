/**
 * Whether an account is automation (a bot, a CI job, a dependency updater) rather than a person. Its
 * items stay searchable; it is left out of every answer about people (`relevantActors`, expertise).
 *
 * In order of trust:
 * 1. the provider says so (GitHub's user `type: "Bot"`, carried as `ActorRef.bot`);
 * 2. the name says so: a login or name ending in `[bot]` (GitHub Apps), or holding "bot" as a word of
 *    its own ("StepSecurity Bot", `stepsecurity-bot`, `renovate-bot`, `snyk_bot`, `DeployBot`); a name
 *    that only ends in the letters ("Talbot", "abbot") is not one;
 * 3. a short list of well-known automation accounts whose names carry no such word (`dependabot`,
 *    `web-flow`, `github-actions`, ...). Add to it only accounts that exist on a public provider.
 */
export const AUTOMATION_ACCOUNTS: ReadonlySet<string> = new Set([
  'github', 'web-flow', 'github-actions', 'dependabot', 'dependabot-preview', 'renovate', 'greenkeeper',
  'codecov', 'imgbot', 'mergify', 'allcontributors', 'all-contributors', 'vercel', 'netlify', 'linear',
  'stale', 'pre-commit-ci', 'github actions', 'copilot', 'coderabbitai', 'sonarcloud', 'changeset-bot',
]);

/** "bot" as a word of its own: between separators, or a capitalised last word of a camelCase name. */
const BOT_WORD = /(?:^|[\s_.\-/])bots?(?:$|[\s_.\-/[(])|[a-z\d]Bot$/;

/**
 * True when a login or display name names automation (rules 2 and 3 above); with `known: false`, rule 2
 * alone (a person's full name may be a well-known account's login: only a login is matched to the list).
 */
export function isAutomationName(name: string | null | undefined, options: { known?: boolean } = {}): boolean {
  const raw = name?.trim() ?? '';
  if (!raw) return false;
  const lower = raw.toLowerCase().replace(/\s+/g, ' ');
  if (/\[bot\]$/.test(lower) || (options.known !== false && AUTOMATION_ACCOUNTS.has(lower))) return true;
  return BOT_WORD.test(raw) || BOT_WORD.test(lower);
}
