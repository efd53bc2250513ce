import type { RefRelation, SourceRef } from '@engram/contracts';
import { firstLine, readProse } from './prose.js';
import type { TextRefContext } from './types.js';

/**
 * Linking references written in text, with canonical keys:
 * - `gh:<owner>/<repo>#<n>` for `#n`, `owner/repo#n` and github.com pull/issue URLs (pull requests
 *   and issues share one number space, so one key form serves both);
 * - `commit:<sha>` for full 40-hex shas, and for any sha after `This reverts commit`;
 * - `linear:<TEAM-123>` for Linear issue keys and linear.app issue URLs;
 * - `title:<normalised title>` for `Revert "<title>"` without a number (see normalizeTitleKey).
 * The first line of the text is read as its title (commit subject, or `title\n\nbody`).
 */

/** Where a GitHub reference came from; entity extraction uses it to tell PRs from issues. */
export type GithubRefKind = 'pull_url' | 'issue_url' | 'qualified' | 'number' | 'squash';

export interface TextRef extends SourceRef {
  /** Set on `gh:` keys only. */
  githubKind?: GithubRefKind;
}

// GitHub's closing keywords (docs: "Linking a pull request to an issue"), optionally followed by
// a colon, possibly heading a list such as `fixes #1, #2 and owner/repo#3`.
const CLOSING_PREFIX =
  /(?:^|[^\w-])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+(?:(?:[\w.-]+\/[\w.-]+)?#\d+(?:\s*,\s*(?:and\s+)?|\s+and\s+))*$/i;
const GITHUB_ITEM_URL = /\bhttps?:\/\/(?:www\.)?github\.com\/([\w.-]+)\/([\w.-]+)\/(pull|issues)\/(\d+)/gi;
const GITHUB_COMMIT_URL = /\bhttps?:\/\/(?:www\.)?github\.com\/[\w.-]+\/[\w.-]+\/commit\/([0-9a-f]{40})\b/gi;
const QUALIFIED_REF = /(?<![\w./-])([A-Za-z0-9][\w.-]*)\/([\w.-]+)#(\d+)\b/g;
const NUMBER_REF = /(?<![\w&#/])#([1-9]\d{0,6})\b/g;
/** `color: #333`: a CSS colour written in prose, not issue 333. */
const CSS_COLOUR_PREFIX = /(?:colou?r|background|border|fill|stroke|shadow)[\w-]*\s*:?\s*$/i;
const REVERTS_COMMIT = /(?:\bThis reverts commit|^\s*Revert(?: commit)?) ([0-9a-f]{7,40})\b/gim;
const REVERTS_REF = /\bReverts (?:([\w.-]+\/[\w.-]+))?#(\d+)\b/g;
const FULL_SHA = /(?<![\w/-])[0-9a-f]{40}(?![\w-])/gi;
const LINEAR_URL = /\bhttps?:\/\/linear\.app\/[\w-]+\/issue\/([a-z][a-z0-9]{0,9}-\d+)/gi;
const LINEAR_KEY = /(?<![\w-])([A-Z][A-Z0-9]{1,9})-(\d{1,6})(?![\w-])/g;
const SQUASH_SUFFIX = /\s\(#(\d+)\)$/;
const REVERT_TITLE = /^revert\s+(.*)$/i;

/**
 * Upper-case prefixes that look like Linear team keys but name standards, encodings, CVEs and
 * versions (`UTF-8`, `ES-2015`, `ISO-8601`, `SHA-256`, `CVE-2024-1234`, `GH-123` is GitHub's).
 */
export const NOT_LINEAR_TEAMS: ReadonlySet<string> = new Set([
  'UTF', 'UCS', 'ES', 'ECMA', 'ISO', 'IEC', 'IEEE', 'ANSI', 'SHA', 'MD', 'AES', 'RSA', 'DES', 'HMAC',
  'CVE', 'CWE', 'GHSA', 'RFC', 'PEP', 'HTTP', 'HTTPS', 'TLS', 'SSL', 'TCP', 'UDP', 'IP', 'IPV',
  'GH', 'WCAG', 'ARIA', 'GPL', 'LGPL', 'AGPL', 'MIT', 'BSD', 'MPL', 'APACHE', 'CC', 'WIN', 'X', 'ARM',
  'AMD', 'INTEL', 'IE', 'CSS', 'HTML', 'TS', 'JS', 'NODE', 'V', 'COVID', 'EN', 'LATIN', 'PR',
]);

/** Key form shared by every producer of revert references: lower-case, spaces collapsed, no ` (#n)`. */
export function normalizeTitleKey(title: string): string {
  return title
    .trim()
    .replace(/(?:\s*\(#\d+\))+$/, '')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/** The `n` of a squash-merge subject such as `Fix quotes (#123)`, else null. */
export function squashMergeNumber(title: string): number | null {
  const match = SQUASH_SUFFIX.exec(title.trim());
  return match?.[1] === undefined ? null : Number(match[1]);
}

const ghKey = (owner: string, repo: string, n: string | number): string =>
  `gh:${owner.toLowerCase()}/${repo.toLowerCase()}#${Number(n)}`;

const splitRepo = (repo: string | undefined): [string, string] | null => {
  const slash = repo?.indexOf('/') ?? -1;
  if (repo === undefined || slash <= 0) return null;
  return [repo.slice(0, slash), repo.slice(slash + 1)];
};

const closes = (text: string, index: number): boolean => CLOSING_PREFIX.test(text.slice(Math.max(0, index - 80), index));

/** Revert references carried by a title: `Revert "X (#n)"`, `Revert #n`, `Revert "X"`. */
function revertRefs(title: string, home: [string, string] | null): TextRef[] {
  const match = REVERT_TITLE.exec(title);
  if (match?.[1] === undefined) return [];
  let reverted = match[1].trim();
  if (squashMergeNumber(reverted) !== null) reverted = reverted.replace(SQUASH_SUFFIX, '').trim();
  const unquoted = reverted.replace(/^["'\u201c]/, '').replace(/["'\u201d]$/, '').trim();
  const numbered = /(?:^|\s|\()#(\d+)\)?$/.exec(unquoted);
  if (numbered?.[1] !== undefined) {
    return home === null ? [] : [{ key: ghKey(home[0], home[1], numbered[1]), relation: 'reverts', confidence: 0.9, githubKind: 'number' }];
  }
  if (!/^["'\u201c]/.test(reverted) || unquoted === '') return [];
  return [{ key: `title:${normalizeTitleKey(unquoted)}`, relation: 'reverts', confidence: 0.8 }];
}

const RELATION_RANK: Record<RefRelation, number> = {
  reverts: 3, fixes: 2, merged_as: 1, contains: 1, built_from: 1, attachment: 1, parent: 1, in_project: 1, on_branch: 1, references: 0,
};

const KIND_RANK: Record<GithubRefKind, number> = { squash: 4, pull_url: 3, issue_url: 2, qualified: 1, number: 0 };

const betterKind = (a: GithubRefKind | undefined, b: GithubRefKind | undefined): GithubRefKind | undefined =>
  a === undefined ? b : b === undefined ? a : KIND_RANK[a] >= KIND_RANK[b] ? a : b;

/** One ref per key: the strongest relation, then the highest confidence; the most telling kind. */
function dedupe(refs: TextRef[]): TextRef[] {
  const byKey = new Map<string, TextRef>();
  for (const ref of refs) {
    const seen = byKey.get(ref.key);
    if (seen === undefined) {
      byKey.set(ref.key, ref);
      continue;
    }
    const rank = RELATION_RANK[ref.relation] - RELATION_RANK[seen.relation];
    const winner = rank > 0 || (rank === 0 && ref.confidence > seen.confidence) ? ref : seen;
    const githubKind = betterKind(seen.githubKind, ref.githubKind);
    byKey.set(ref.key, githubKind === undefined ? winner : { ...winner, githubKind });
  }
  return [...byKey.values()];
}

/** Like extractTextRefs, keeping where each GitHub reference came from. */
export function scanTextRefs(raw: string, ctx: TextRefContext = {}): TextRef[] {
  const home = splitRepo(ctx.repo);
  const { text, prose } = readProse(raw);
  const refs: TextRef[] = [];
  const title = firstLine(raw);

  const squash = squashMergeNumber(title);
  if (squash !== null && home !== null) {
    refs.push({ key: ghKey(home[0], home[1], squash), relation: 'references', confidence: 0.95, githubKind: 'squash' });
  }
  refs.push(...revertRefs(title, home));

  for (const m of text.matchAll(GITHUB_ITEM_URL)) {
    const [, owner = '', repo = '', kind, n = ''] = m;
    const fixes = closes(text, m.index);
    refs.push({
      key: ghKey(owner, repo, n),
      relation: fixes ? 'fixes' : 'references',
      confidence: fixes ? 0.95 : 0.9,
      githubKind: kind?.toLowerCase() === 'pull' ? 'pull_url' : 'issue_url',
    });
  }
  for (const m of text.matchAll(GITHUB_COMMIT_URL)) {
    refs.push({ key: `commit:${(m[1] ?? '').toLowerCase()}`, relation: 'references', confidence: 0.9 });
  }
  for (const m of text.matchAll(LINEAR_URL)) {
    refs.push({ key: `linear:${(m[1] ?? '').toUpperCase()}`, relation: 'references', confidence: 0.95 });
  }

  for (const m of prose.matchAll(QUALIFIED_REF)) {
    const [, owner = '', repo = '', n = ''] = m;
    const fixes = closes(prose, m.index);
    refs.push({ key: ghKey(owner, repo, n), relation: fixes ? 'fixes' : 'references', confidence: fixes ? 0.9 : 0.85, githubKind: 'qualified' });
  }
  if (home !== null) {
    for (const m of prose.matchAll(NUMBER_REF)) {
      if (CSS_COLOUR_PREFIX.test(prose.slice(Math.max(0, m.index - 30), m.index))) continue;
      const fixes = closes(prose, m.index);
      refs.push({ key: ghKey(home[0], home[1], m[1] ?? ''), relation: fixes ? 'fixes' : 'references', confidence: fixes ? 0.9 : 0.8, githubKind: 'number' });
    }
  }
  for (const m of prose.matchAll(REVERTS_REF)) {
    const target = splitRepo(m[1]) ?? home;
    if (target !== null) refs.push({ key: ghKey(target[0], target[1], m[2] ?? ''), relation: 'reverts', confidence: 0.9, githubKind: m[1] ? 'qualified' : 'number' });
  }

  for (const m of prose.matchAll(REVERTS_COMMIT)) {
    if (!/\d/.test(m[1] ?? '')) continue;
    refs.push({ key: `commit:${(m[1] ?? '').toLowerCase()}`, relation: 'reverts', confidence: 0.95 });
  }
  for (const m of prose.matchAll(FULL_SHA)) {
    const sha = m[0].toLowerCase();
    if (/[a-f]/.test(sha) && /\d/.test(sha)) refs.push({ key: `commit:${sha}`, relation: 'references', confidence: 0.7 });
  }

  const teams = ctx.linearTeams === undefined ? null : new Set(ctx.linearTeams.map((t) => t.toUpperCase()));
  for (const m of prose.matchAll(LINEAR_KEY)) {
    const team = m[1] ?? '';
    if (teams === null ? NOT_LINEAR_TEAMS.has(team) || /\d/.test(team) : !teams.has(team)) continue;
    refs.push({ key: `linear:${team}-${Number(m[2])}`, relation: 'references', confidence: teams === null ? 0.6 : 0.9 });
  }
  return dedupe(refs);
}

export function extractTextRefs(text: string, ctx: TextRefContext = {}): SourceRef[] {
  return scanTextRefs(text, ctx).map(({ key, relation, confidence }) => ({ key, relation, confidence }));
}
