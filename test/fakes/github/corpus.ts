/** Loads the real prettier/prettier export (shared/data/github-prettier) for tests that feed the fake. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FakeCommit, FakePull } from './model.js';

/** `<checkout>/../shared/data/github-prettier/corpus.json`: present on developer machines and CI. */
export const PRETTIER_CORPUS_PATH = fileURLToPath(new URL('../../../../shared/data/github-prettier/corpus.json', import.meta.url));
export const hasPrettierCorpus = (): boolean => existsSync(PRETTIER_CORPUS_PATH);

let cached: (FakePull | FakeCommit)[] | undefined;

/** All 9,366 corpus objects (5,000 commits newest first, then 4,366 pull requests newest first). */
export function loadPrettierCorpus(): (FakePull | FakeCommit)[] {
  cached ??= JSON.parse(readFileSync(PRETTIER_CORPUS_PATH, 'utf8')) as (FakePull | FakeCommit)[];
  return cached;
}

/** The newest `pulls` pull requests and the newest `commits` commits (a PR's commits are mostly among them). */
export function prettierSubset(counts: { pulls: number; commits: number }): { pulls: FakePull[]; commits: FakeCommit[] } {
  const all = loadPrettierCorpus();
  return {
    pulls: all.filter((x): x is FakePull => x.type === 'pull_request').slice(0, counts.pulls),
    commits: all.filter((x): x is FakeCommit => x.type === 'commit').slice(0, counts.commits),
  };
}
