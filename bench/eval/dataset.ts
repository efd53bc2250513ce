/**
 * The shared GitHub evaluation dataset (`../shared/data/github-prettier`): corpus items, queries with
 * graded targets, similar pairs and ground-truth links, plus the helpers that map an Engram result
 * (which carries the provider URL) back to a dataset id.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PullRequestItem {
  type: 'pull_request';
  id: string;
  number: number;
  html_url: string;
  title: string;
  body: string | null;
  merge_commit_sha: string | null;
  commit_shas: string[];
  merged_at: string | null;
  created_at: string;
}

export interface CommitItem {
  type: 'commit';
  id: string;
  sha: string;
  html_url: string;
  commit: { message: string; author: { name: string; date: string } };
}

export type CorpusItem = PullRequestItem | CommitItem;

export interface RelevantPullRequest {
  id: string;
  type: string;
  number: number;
  grade: number;
}

export interface Query {
  id: string;
  query: string;
  relevant: RelevantPullRequest[];
  relevant_commits: string[];
  context: string | null;
  ambiguous_with: string[];
}

export interface SimilarPair {
  a: string;
  b: string;
  relation: string;
  grade: number;
  evidence: string;
}

export interface Link {
  type: string;
  source: string;
  target: string;
  directed: boolean;
  relation?: string;
  target_in_corpus?: boolean;
  evidence?: string;
}

/**
 * The relation a link records, in the dataset's kind vocabulary. `links.json` files a revert two ways:
 * under `reverts` when a commit body says "This reverts commit <sha>", and under `references_pr` with
 * `relation: "revert"` when a pull request says "Revert #N" or is titled `Revert "..." (#N)`. Both are
 * reverts (Engram records both as `reverts` edges), so both count as revert truth, for recall as much
 * as for precision.
 */
export function linkKind(link: Link): string {
  return link.type === 'references_pr' && link.relation === 'revert' ? 'reverts' : link.type;
}

/**
 * Documents the evaluation's queries were written from: prettier's changelog, its unreleased changelog
 * entries and its release blog posts. A corpus holding them would hold the answers' own wording, so the
 * harness keeps them out of what it imports. (The product syncs them like any document: users search
 * their changelog.) Paths are repository-relative.
 */
export function isQuerySourceDocument(path: string): boolean {
  return /(^|\/)changelog\.md$/i.test(path) || path.startsWith('changelog_unreleased/') || path.startsWith('website/blog/');
}

/** The corpus objects the evaluation may import: everything but query-source documents. */
export function evalCorpus<T>(objects: readonly T[]): T[] {
  return objects.filter((o) => {
    const d = o as { type?: unknown; path?: unknown };
    return !(d.type === 'document' && typeof d.path === 'string' && isQuerySourceDocument(d.path));
  });
}

export interface Dataset {
  corpus: CorpusItem[];
  queries: Query[];
  similar: SimilarPair[];
  links: Link[];
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

export async function loadDataset(dir: string): Promise<Dataset> {
  const [corpus, queries, similar, links] = await Promise.all([
    readJson<CorpusItem[]>(join(dir, 'corpus.json')),
    readJson<Query[]>(join(dir, 'queries.json')),
    readJson<SimilarPair[]>(join(dir, 'similar.json')),
    readJson<Link[]>(join(dir, 'links.json')),
  ]);
  return { corpus, queries, similar, links };
}

/**
 * Links `links.json` leaves out, found by auditing the edges Engram predicts that the labels do not
 * hold (`bench/related-graph.ts` lists them). Each names its evidence in the corpus text. Scores are
 * reported against `links.json` alone first; precision with these added is reported beside it, never
 * instead of it, and recall is always against `links.json` alone.
 */
export async function loadAuditedLinks(): Promise<Link[]> {
  return readJson<Link[]>(join(dirname(fileURLToPath(import.meta.url)), 'audited-links.json'));
}

export type Split = 'dev' | 'test' | 'all';

/** Share of queries held out as the test split. */
export const TEST_FRACTION = 0.3;

/** A stable number in [0,1) derived from a query id, so the split never depends on file order. */
function unitHash(id: string): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) / 2 ** 32;
}

export function splitOf(queryId: string): 'dev' | 'test' {
  return unitHash(queryId) < TEST_FRACTION ? 'test' : 'dev';
}

/** The deterministic dev/test split: about 70% dev, 30% held out as test. */
export function splitQueries(queries: Query[], split: Split): Query[] {
  return split === 'all' ? queries : queries.filter((q) => splitOf(q.id) === split);
}

/** Maps a GitHub html URL (pull request, commit or issue) to a dataset id, or null. */
export function datasetIdFromUrl(url: string): string | null {
  const match = /github\.com\/[^/]+\/[^/]+\/(pull|pulls|commit|commits|issues)\/([0-9a-f]+|\d+)(?:[/?#].*)?$/i.exec(url);
  if (!match) return null;
  const [, kind, ref] = match;
  if (kind === 'pull' || kind === 'pulls') return `pull_request:${Number(ref)}`;
  if (kind === 'issues') return `issue:${Number(ref)}`;
  return `commit:${ref!.toLowerCase()}`;
}

/** The html URL of a corpus item, for requests that accept a URL instead of an Engram id. */
export function urlOfItem(item: CorpusItem): string {
  return item.html_url;
}

/** The text a lexical index sees for an item: title + body for a PR, the message for a commit. */
export function itemText(item: CorpusItem): string {
  return item.type === 'pull_request' ? `${item.title}\n${item.body ?? ''}` : item.commit.message;
}

/** commit id -> the pull requests it belongs to (from `commit_pr` links and each PR's `commit_shas`). */
export function pullRequestsByCommit(corpus: CorpusItem[], links: Link[]): Map<string, Set<string>> {
  const byCommit = new Map<string, Set<string>>();
  const add = (commitId: string, prId: string): void => {
    const set = byCommit.get(commitId) ?? new Set<string>();
    set.add(prId);
    byCommit.set(commitId, set);
  };
  for (const link of links) {
    if (link.type !== 'commit_pr') continue;
    const [commitId, prId] = link.source.startsWith('commit:') ? [link.source, link.target] : [link.target, link.source];
    add(commitId, prId);
  }
  for (const item of corpus) {
    if (item.type === 'pull_request') for (const sha of item.commit_shas) add(`commit:${sha}`, item.id);
  }
  return byCommit;
}

/** Ids of commits that are the squash merge of a pull request present in the corpus. */
export function squashCommitIds(corpus: CorpusItem[]): Set<string> {
  const ids = new Set<string>();
  for (const item of corpus) {
    if (item.type === 'pull_request' && item.merge_commit_sha) ids.add(`commit:${item.merge_commit_sha}`);
  }
  const present = new Set(corpus.map((item) => item.id));
  return new Set([...ids].filter((id) => present.has(id)));
}
