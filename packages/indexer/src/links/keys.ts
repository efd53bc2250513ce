import type { RefRelation, SourceEvent } from '@engram/contracts';
import { extractTextRefs, normalizeTitleKey, squashMergeNumber } from '../entities/index.js';

/**
 * The linking keys of one event: identity keys (what other items' references can point at) and its
 * own references. GitHub pull requests and issues share one number space, so `pr:o/r#n` and
 * `issue:o/r#n` both become `gh:o/r#n`, the form text references use (`#n`, URLs).
 */
export interface LinkRef {
  key: string;
  relation: RefRelation;
  confidence: number;
}

export const canonicalKey = (key: string): string => key.replace(/^(?:pr|issue):/, 'gh:');

/** `title:` identity keys let `Revert "<title>"` find its target: only changes (PRs, commits) carry them. */
const TITLED_TYPES: ReadonlySet<string> = new Set(['pull_request', 'commit']);

export function identityKeys(event: SourceEvent): string[] {
  const keys = new Set(event.keys.map(canonicalKey));
  if (TITLED_TYPES.has(event.type) && event.title) {
    const title = normalizeTitleKey(event.title);
    if (title !== '') keys.add(`title:${title}`);
  }
  return [...keys];
}

const RELATION_RANK: Record<RefRelation, number> = {
  reverts: 3, fixes: 2, merged_as: 2, contains: 1, built_from: 1, attachment: 1, parent: 1, in_project: 1, on_branch: 1, references: 0,
};

const REVERT_SUBJECT = /^\s*revert\b/i;

/** A GitHub repository container `owner/name`: the home of `#123` references in its text. */
const githubRepo = (event: SourceEvent): string | undefined =>
  event.source === 'github' && event.container?.includes('/') ? event.container.toLowerCase() : undefined;

/**
 * Structured refs, references found in title and body, and for a commit the squash-merge suffix
 * ` (#n)` as `merged_as`. One ref per key (strongest relation, then confidence); none to its own keys.
 */
export function itemRefs(event: SourceEvent, ownKeys: readonly string[]): LinkRef[] {
  const repo = githubRepo(event);
  const found: LinkRef[] = event.refs.map((r) => ({ key: canonicalKey(r.key), relation: r.relation, confidence: r.confidence }));
  const text = event.title ? `${event.title}\n\n${event.body}` : event.body;
  found.push(...extractTextRefs(text, repo ? { repo } : {}));
  if (event.type === 'commit' && event.title && repo) {
    const n = squashMergeNumber(event.title);
    if (n !== null) found.push({ key: `gh:${repo}#${n}`, relation: 'merged_as', confidence: 0.95 });
  }
  // A pull request title is never a squash subject: in `Revert "X" (#n)` the number names the reverted PR.
  if (event.type === 'pull_request' && event.title && repo && REVERT_SUBJECT.test(event.title)) {
    const n = squashMergeNumber(event.title);
    if (n !== null) found.push({ key: `gh:${repo}#${n}`, relation: 'reverts', confidence: 0.9 });
  }
  const own = new Set(ownKeys);
  const byKey = new Map<string, LinkRef>();
  for (const ref of found) {
    if (own.has(ref.key)) continue;
    const seen = byKey.get(ref.key);
    const rank = seen ? RELATION_RANK[ref.relation] - RELATION_RANK[seen.relation] : 1;
    if (!seen || rank > 0 || (rank === 0 && ref.confidence > seen.confidence)) byKey.set(ref.key, ref);
  }
  // A revert that names what it reverts (a commit SHA, a PR number) links by that; its quoted title is a
  // weak key that also matches older items with the same title ("Fix tests"), so it is dropped then.
  const refs = [...byKey.values()];
  const namesTarget = refs.some((r) => r.relation === 'reverts' && !r.key.startsWith('title:'));
  return namesTarget ? refs.filter((r) => !(r.relation === 'reverts' && r.key.startsWith('title:'))) : refs;
}
