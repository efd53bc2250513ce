/**
 * A seeded, deterministic generator of large GitHub export corpora made of real text from the prettier
 * dataset (`../shared/data/github-prettier/corpus.json`), for the scale benchmark.
 *
 * The source is cut into units: a pull request with the commits of it the corpus holds (its
 * `commit_shas` and squash `merge_commit_sha`), or a commit no pull request owns. The output is built
 * copy after copy of the source: each copy visits every unit once in a seeded order, and each visit
 * becomes a new unit in one of several synthetic repositories (`scale-org/<name>`), with a new pull
 * request number and new commit SHAs. Copy 0 keeps each unit's own text; every later copy recombines:
 * the title, the body, the file list and the author each come from another source unit drawn at
 * random, so no two copies repeat a document. Links stay consistent: a pull request names exactly the
 * commits emitted with it in its repository, its squash commit says `Title (#n)` with its own new
 * number, `#N` / `prettier/prettier#N` / pull URLs in any text point to the same copy's instance of
 * that source pull request (`owner/repo#n` when it landed in another repository), reverted SHAs to the
 * same copy's commit, and a number the source does not hold stays below the synthetic numbers (which
 * start above the source's highest), so it never names a synthetic item by accident. Time: the
 * source's span is stretched onto a five-year window and each copy is rotated through the window by a
 * different offset (golden-ratio steps), one shift per unit, so a pull request and its commits keep
 * their order and gaps.
 */
import { createHash } from 'node:crypto';

export interface SourceActor {
  login: string;
  type?: string;
}

export interface SourcePull {
  type: 'pull_request';
  id: string;
  number: number;
  url: string;
  html_url: string;
  state: string;
  merged: boolean;
  title: string;
  body: string | null;
  user: SourceActor | null;
  labels: unknown[];
  created_at: string;
  merged_at: string | null;
  closed_at: string | null;
  merge_commit_sha: string | null;
  files: { filename: string; status: string }[];
  files_total: number;
  files_truncated: boolean;
  commit_shas: string[];
}

export interface SourceCommit {
  type: 'commit';
  id: string;
  sha: string;
  url: string;
  html_url: string;
  commit: { message: string; author: { name: string; date: string }; committer?: { name: string; date: string } };
  author: SourceActor | null;
  committer: SourceActor | null;
  parents: { sha: string }[];
  files: { filename: string; status: string }[];
  files_total: number;
  files_truncated: boolean;
}

export type SourceItem = SourcePull | SourceCommit | { type: string };

export interface GenerateOptions {
  /** Items to produce, exactly. */
  count: number;
  seed: number;
  /** Synthetic repositories (`owner/name`); default: `scale-org/<name>`, 3 to 8 of them by size. */
  repos?: string[];
  /** First copy of the source to emit (0 keeps the source's own text; >= 1 recombines everything). */
  startCopy?: number;
}

export interface GeneratedRepo {
  repo: string;
  items: (SourcePull | SourceCommit)[];
}

export interface GeneratedCorpus {
  seed: number;
  count: number;
  repos: GeneratedRepo[];
  /** How many copies of the source the count took (the last one partial). */
  copies: number;
}

const REPO_NAMES = ['atlas', 'beacon', 'cinder', 'delta', 'ember', 'fjord', 'glade', 'harbor'];
const WINDOW_MS = 5 * 365.25 * 86_400_000;
const GOLDEN = 0.6180339887498949;

/** 3 repositories up to 15k items, one more per 5k, at most 8. */
export function defaultRepos(count: number): string[] {
  const n = Math.min(REPO_NAMES.length, Math.max(3, Math.ceil(count / 5000)));
  return REPO_NAMES.slice(0, n).map((name) => `scale-org/${name}`);
}

/** mulberry32: a small seeded PRNG, enough for shuffles and picks. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Unit {
  pull: SourcePull | null;
  commits: SourceCommit[];
}

interface Placement {
  repo: string;
  number: number | null;
}

const isPull = (item: SourceItem): item is SourcePull => item.type === 'pull_request';
const isCommit = (item: SourceItem): item is SourceCommit => item.type === 'commit';
const splitMessage = (message: string): { subject: string; body: string } => {
  const newline = message.indexOf('\n');
  return newline === -1 ? { subject: message, body: '' } : { subject: message.slice(0, newline), body: message.slice(newline + 1) };
};

function unitsOf(source: SourceItem[]): Unit[] {
  const commits = new Map(source.filter(isCommit).map((c) => [c.sha.toLowerCase(), c]));
  const owned = new Set<string>();
  const units: Unit[] = [];
  for (const pull of source.filter(isPull)) {
    const shas = [...new Set([...pull.commit_shas, ...(pull.merge_commit_sha ? [pull.merge_commit_sha] : [])].map((s) => s.toLowerCase()))];
    const mine = shas.flatMap((sha) => commits.get(sha) ?? []).filter((c) => !owned.has(c.sha.toLowerCase()));
    for (const c of mine) owned.add(c.sha.toLowerCase());
    units.push({ pull, commits: mine });
  }
  for (const [sha, commit] of commits) if (!owned.has(sha)) units.push({ pull: null, commits: [commit] });
  return units;
}

const sizeOf = (unit: Unit): number => (unit.pull ? 1 : 0) + unit.commits.length;

export function generateCorpus(source: SourceItem[], options: GenerateOptions): GeneratedCorpus {
  const { count, seed, startCopy = 0 } = options;
  if (!Number.isInteger(count) || count < 1) throw new Error(`count must be a positive integer (got ${count})`);
  const repos = options.repos ?? defaultRepos(count);
  const units = unitsOf(source);
  if (units.length === 0) throw new Error('the source corpus holds no pull requests or commits');
  const pulls = units.flatMap((u) => (u.pull ? [u.pull] : []));
  const commits = units.flatMap((u) => u.commits);
  const commitParts = commits.map((c) => splitMessage(c.commit.message));
  const commitBodies = commitParts.map((p) => p.body).filter((b) => b.trim());
  const authors = commits.map((c) => ({ login: c.author?.login ?? null, name: c.commit.author.name }));
  const times = units.map((u) => Date.parse(u.pull?.created_at ?? u.commits[0]!.commit.author.date));
  const end = Math.max(...times);
  const span = Math.max(1, end - Math.min(...times));
  const firstNumber = Math.max(0, ...pulls.map((p) => p.number)) + 1;

  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const out = new Map(repos.map((repo) => [repo, [] as (SourcePull | SourceCommit)[]]));
  const nextNumber = new Map(repos.map((repo) => [repo, firstNumber]));
  const shaOf = (copy: number, sha: string): string => createHash('sha1').update(`${seed}:${copy}:${sha.toLowerCase()}`).digest('hex');
  let emitted = 0;
  let copy = startCopy;
  for (; emitted < count; copy++) {
    // Shuffle (Fisher-Yates) and place every unit of this copy first, so references resolve inside it.
    const order = units.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const chosen: number[] = [];
    let budget = count - emitted;
    for (const i of order) {
      const size = sizeOf(units[i]!);
      if (size <= budget) {
        chosen.push(i);
        budget -= size;
      }
      if (budget === 0) break;
    }
    const placement = new Map<number, Placement>();
    const byNumber = new Map<number, Placement>();
    for (const i of chosen) {
      const repo = pick(repos);
      const unit = units[i]!;
      const place: Placement = { repo, number: unit.pull ? nextNumber.get(repo)! : null };
      if (unit.pull) {
        nextNumber.set(repo, place.number! + 1);
        byNumber.set(unit.pull.number, place);
      }
      placement.set(i, place);
    }
    const shaMap = new Map<string, string>();
    for (const i of chosen) for (const c of units[i]!.commits) shaMap.set(c.sha.toLowerCase(), shaOf(copy, c.sha));
    const offset = ((copy * GOLDEN) % 1) * WINDOW_MS;
    const retime = (anchor: number) => {
      const scaled = end - ((end - anchor) / span) * WINDOW_MS;
      let moved = scaled - offset;
      if (moved < end - WINDOW_MS) moved += WINDOW_MS;
      const delta = moved - anchor;
      return (iso: string | null): string | null => (iso === null ? null : new Date(Date.parse(iso) + delta).toISOString());
    };

    for (const i of chosen) {
      const unit = units[i]!;
      const place = placement.get(i)!;
      const rewrite = (text: string): string =>
        text
          .replace(/(?:https:\/\/github\.com\/prettier\/prettier\/(?:pull|issues)\/|(?<![\w/])(?:prettier\/prettier)?#)(\d+)\b/gi, (whole: string, digits: string) => {
            const n = Number(digits);
            const target = byNumber.get(n);
            if (!target) return n < firstNumber ? `#${n}` : whole;
            return target.repo === place.repo ? `#${target.number}` : `${target.repo}#${target.number}`;
          })
          .replace(/\b[0-9a-f]{40}\b/g, (sha) => shaMap.get(sha) ?? sha);
      const time = retime(times[i]!);
      const recombine = copy > 0;
      const author = recombine ? pick(authors) : null;
      const url = (kind: 'pull' | 'commit', ref: string | number) => ({
        url: `https://api.github.com/repos/${place.repo}/${kind === 'pull' ? 'pulls' : 'commits'}/${ref}`,
        html_url: `https://github.com/${place.repo}/${kind}/${ref}`,
      });
      let title = '';
      if (unit.pull) {
        const pull = unit.pull;
        title = recombine ? pick(pulls).title : pull.title;
        const bodySource = recombine ? pick(pulls).body : pull.body;
        const files = recombine ? pick(pulls).files : pull.files;
        const newShas = unit.commits.map((c) => shaMap.get(c.sha.toLowerCase())!);
        const merge = pull.merge_commit_sha ? shaMap.get(pull.merge_commit_sha.toLowerCase()) ?? null : null;
        out.get(place.repo)!.push({
          ...pull,
          id: `pull_request:${place.number}`,
          number: place.number!,
          ...url('pull', place.number!),
          title: rewrite(title),
          body: bodySource === null ? null : rewrite(bodySource),
          user: author ? (author.login ? { login: author.login, type: 'User' } : null) : pull.user,
          created_at: time(pull.created_at)!,
          merged_at: time(pull.merged_at),
          closed_at: time(pull.closed_at),
          merge_commit_sha: merge,
          files,
          files_total: recombine ? files.length : pull.files_total,
          files_truncated: recombine ? false : pull.files_truncated,
          commit_shas: newShas.filter((sha) => pull.commit_shas.some((s) => shaMap.get(s.toLowerCase()) === sha)),
        });
      }
      for (const c of unit.commits) {
        const sha = shaMap.get(c.sha.toLowerCase())!;
        const isSquash = unit.pull?.merge_commit_sha?.toLowerCase() === c.sha.toLowerCase();
        let message = c.commit.message;
        if (recombine) {
          const own = isSquash ? `${title} (#${unit.pull!.number})` : pick(commitParts).subject.replace(/\s*\(#\d+\)\s*$/, '');
          const body = random() < commitBodies.length / commits.length ? pick(commitBodies) : '';
          message = body ? `${own}\n\n${body}` : own;
        }
        const files = recombine ? pick(commits).files : c.files;
        const date = time(c.commit.author.date)!;
        const name = author?.name ?? c.commit.author.name;
        out.get(place.repo)!.push({
          ...c,
          id: `commit:${sha}`,
          sha,
          ...url('commit', sha),
          commit: { message: rewrite(message), author: { name, date }, committer: { name: c.commit.committer?.name ?? name, date: time(c.commit.committer?.date ?? c.commit.author.date)! } },
          author: author ? (author.login ? { login: author.login, type: 'User' } : null) : c.author,
          parents: c.parents.map((p) => ({ sha: shaMap.get(p.sha.toLowerCase()) ?? shaOf(copy, p.sha) })),
          files,
          files_total: recombine ? files.length : c.files_total,
          files_truncated: recombine ? false : c.files_truncated,
        });
      }
      emitted += sizeOf(unit);
    }
    if (chosen.length === 0) throw new Error('no unit fits the remaining count (the source has no single commits)');
  }
  return { seed, count: emitted, copies: copy - startCopy, repos: repos.map((repo) => ({ repo, items: out.get(repo)! })) };
}
