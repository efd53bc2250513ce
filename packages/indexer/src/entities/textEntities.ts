import { classifyPath, cleanPath } from './paths.js';
import type { Prose } from './prose.js';
import type { ExtractedEntity } from './types.js';

/**
 * Entities written in free text, each pattern with a confidence for how often it is right.
 * Reads a `Prose` (code and URLs separated out) so that e-mail domains, URL paths and code are not
 * mistaken for mentions, shas or files.
 */

type Emit = (category: ExtractedEntity['category'], key: string, confidence: number) => void;

// GitHub logins: alphanumerics and single inner hyphens, at most 39 characters. Not preceded by a
// word character (e-mail `foo@bar.com`) and not followed by `/` (scoped package `@babel/parser`),
// `@` or `.word` (an e-mail domain).
const MENTION = /(?<![\w@/.`+-])@([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38})(?![\w/@-]|\.[A-Za-z0-9])/g;
const CO_AUTHOR = /^Co-authored-by:\s*([^<\n]+?)\s*(?:<([^>\s]*)>?)?\s*$/gim;
const NOREPLY_EMAIL = /^(?:\d+\+)?([A-Za-z0-9-]+(?:\[bot\])?)@users\.noreply\.github\.com$/i;
// 7-40 hex characters standing alone: not a `#fff` colour, not part of a UUID or longer word.
const SHA = /(?<![\w#/.-])[0-9a-f]{7,40}(?![\w-])/g;
const BRANCH_QUOTED = /\bbranch(?:es)?\s+[`'"]([\w./-]+)[`'"]|[`'"]([\w./-]+)[`'"] branch\b/gi;
const MERGE_BRANCH = /^Merge (?:remote-tracking )?branch '([^']+)'(?: of \S+)?(?: into ([\w./-]+))?/gm;
const MERGE_PULL = /^Merge pull request #\d+ from [\w.-]+\/([\w./-]+)/gm;
const PREFIXED_BRANCH = /(?<![\w/.-])((?:feature|feat|fix|bugfix|hotfix|release|chore|renovate|dependabot|revert)\/[\w./-]*[\w-])/g;
const PATH_WORD = /(?<![\w@/.:~-])(\.?[\w-]+(?:\/[\w.@-]+)*\/?(?:\.[\w-]+)*)/g;
const ENDPOINT = /\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(\/[\w\-./{}:]*)/g;
const ENVIRONMENT =
  /\b(?:deploy(?:ed|ing|s|ment)?\s+(?:it\s+)?(?:to|in|on)\s+|(?:in|on|to|for)\s+(?:the\s+)?|NODE_ENV\s*[=:]\s*['"]?)(production|staging|preview|development)\b|\b(production|staging|preview|development)\s+(?:environment|env|deploy(?:ment)?s?|builds?|servers?|site|url|domain|database)\b/gi;
const ENV_VAR = /(?<![\w.$-])(\$\{?|process\.env\.|env\.)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b(\s*=)?(?!\.[a-z])/g;
const WELL_KNOWN_ENV_VAR = /^(?:NODE|NPM|GITHUB|VERCEL|NEXT_PUBLIC|CI|AWS|GCP|AZURE|DATABASE|REDIS|OPENAI|LINEAR)_|_(?:URL|URI|TOKEN|KEY|SECRET|ENV|HOST|PORT|PATH|DIR|ID|MODE|DEBUG|LEVEL|PASSWORD|USER)$/;
const ERROR_CODE = /^(?:ERR|E|ERROR|WARN)_/;
const SCOPED_PACKAGE = /(?<![\w@/.-])@([a-z0-9][\w.-]*)\/([a-z0-9](?:[\w.-]*[a-z0-9])?)(?![\w{*])/g;
const IMPORT_SPECIFIER = /\b(?:import\s+(?:[\w*{}\s,]+\s+from\s+)?|require\(\s*|import\(\s*|from\s+)['"]([^'"\s]+)['"]/g;
const DEPENDENCY_TITLE =
  /^(?:\w+\(deps(?:-dev)?\):\s*)?(?:bump|update|upgrade)\s+(?:dependency\s+)?(@?[a-z0-9][\w./-]*)\s+(?:from\s+\S+\s+)?to\s+v?\d/i;
const NPM_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/;
const SERVICES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bgithub actions\b/i, 'github-actions'], [/\bvercel\b/i, 'vercel'], [/\bnetlify\b/i, 'netlify'],
  [/\bcodecov\b/i, 'codecov'], [/\brenovate\b/i, 'renovate'], [/\bdependabot\b/i, 'dependabot'],
  [/\bcircleci\b/i, 'circleci'], [/\bsentry\b/i, 'sentry'], [/\bdatadog\b/i, 'datadog'],
  [/\bdocker\b/i, 'docker'], [/\bcloudflare\b/i, 'cloudflare'], [/\bslack\b/i, 'slack'],
];

/** The package an import specifier names: `@scope/name/sub` -> `@scope/name`, `lodash/fp` -> `lodash`. */
export function packageOfSpecifier(specifier: string): string | null {
  if (/^(?:\.|\/|node:|#|[a-z]+:)/.test(specifier)) return null;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
  return NPM_NAME.test(name) ? name : null;
}

function people(raw: string, prose: string, emit: Emit): void {
  for (const m of prose.matchAll(MENTION)) emit('person', (m[1] ?? '').toLowerCase(), 0.85);
  for (const m of raw.matchAll(CO_AUTHOR)) {
    const login = NOREPLY_EMAIL.exec(m[2] ?? '')?.[1];
    const key = (login ?? m[1] ?? '').trim().toLowerCase();
    if (key !== '') emit('person', key, 0.9);
  }
}

function commits(prose: string, emit: Emit): void {
  for (const m of prose.matchAll(SHA)) {
    const sha = m[0];
    if (!/\d/.test(sha) || !/[a-f]/.test(sha)) continue;
    emit('commit', sha, sha.length === 40 ? 0.9 : sha.length >= 10 ? 0.7 : 0.5);
  }
}

/** `remotes/upstream/main` and a remote-tracking `upstream/main` are the branch `main`. */
const localBranch = (name: string, remoteTracking: boolean): string => {
  const local = name.replace(/^(?:refs\/heads\/|refs\/remotes\/[^/]+\/|remotes\/[^/]+\/)/, '');
  return remoteTracking && local === name ? local.replace(/^[^/]+\//, '') : local;
};

function branches(raw: string, prose: string, emit: Emit): void {
  for (const m of raw.matchAll(MERGE_BRANCH)) {
    if (m[1]) emit('branch', localBranch(m[1], m[0].includes('remote-tracking')), 0.95);
    if (m[2]) emit('branch', localBranch(m[2], false), 0.9);
  }
  for (const m of raw.matchAll(MERGE_PULL)) if (m[1]) emit('branch', m[1], 0.9);
  for (const m of raw.matchAll(BRANCH_QUOTED)) {
    const name = m[1] ?? m[2];
    if (name) emit('branch', localBranch(name, false), 0.85);
  }
  for (const m of prose.matchAll(PREFIXED_BRANCH)) {
    const name = m[1] ?? '';
    if (classifyPath(name) !== 'file') emit('branch', name, 0.6);
  }
}

function paths(prose: string, code: readonly string[], emit: Emit): void {
  const inCode = code.filter((span) => !span.includes('\n')).map((span) => span.trim());
  for (const span of inCode) {
    const kind = classifyPath(span);
    if (kind !== null) emit(kind, cleanPath(span), kind === 'file' ? 0.85 : 0.7);
  }
  for (const m of prose.matchAll(PATH_WORD)) {
    const word = m[1] ?? '';
    if (!word.includes('/') && !word.includes('.')) continue;
    const kind = classifyPath(word);
    if (kind === null) continue;
    const key = cleanPath(word);
    emit(kind, key, kind === 'path' ? 0.6 : key.includes('/') ? 0.8 : 0.6);
  }
}

function endpointsAndEnvironments(text: string, emit: Emit): void {
  for (const m of text.matchAll(ENDPOINT)) {
    const path = (m[2] ?? '').replace(/[.,:;]+$/, '');
    if (path.length > 1) emit('endpoint', `${m[1]} ${path}`, 0.9);
  }
  for (const m of text.matchAll(ENVIRONMENT)) {
    const name = (m[1] ?? m[2] ?? '').toLowerCase();
    if (name !== '') emit('environment', name, 0.7);
  }
}

function envVars(text: string, emit: Emit): void {
  for (const m of text.matchAll(ENV_VAR)) {
    const name = m[2] ?? '';
    if (ERROR_CODE.test(name) || !/[A-Z]{2}/.test(name)) continue;
    const marked = m[1] !== undefined || m[3] !== undefined;
    emit('env_var', name, marked ? 0.9 : WELL_KNOWN_ENV_VAR.test(name) ? 0.8 : 0.5);
  }
}

function packages(title: string, prose: string, code: readonly string[], emit: Emit): void {
  const dependency = DEPENDENCY_TITLE.exec(title)?.[1];
  const fromTitle = dependency === undefined ? null : packageOfSpecifier(dependency.toLowerCase());
  if (fromTitle !== null) emit('package', fromTitle, 0.85);
  const all = [prose, ...code];
  for (const text of all) {
    for (const m of text.matchAll(SCOPED_PACKAGE)) emit('package', `@${m[1]}/${m[2]}`.toLowerCase(), 0.85);
  }
  for (const block of code) {
    for (const m of block.matchAll(IMPORT_SPECIFIER)) {
      const name = packageOfSpecifier(m[1] ?? '');
      if (name !== null) emit('package', name, 0.9);
    }
    // A backticked kebab-case name (`typescript-eslint`, `eslint-plugin-react`) is a package.
    const span = block.trim();
    if (!span.includes('\n') && /^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(span)) emit('package', span, 0.6);
  }
  for (const [pattern, service] of SERVICES) if (pattern.test(prose)) emit('service', service, 0.6);
}

/** All text-pattern entities of one item. `title` is the raw title (first line). */
export function textEntities(title: string, raw: string, prose: Prose, emit: Emit): void {
  people(raw, prose.prose, emit);
  commits(prose.prose, emit);
  branches(raw, prose.prose, emit);
  paths(prose.prose, prose.code, emit);
  const withCode = [prose.text, ...prose.code].join('\n');
  endpointsAndEnvironments(withCode, emit);
  envVars(withCode, emit);
  packages(title, prose.prose, prose.code, emit);
}
