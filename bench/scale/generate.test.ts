import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateCorpus, type GeneratedCorpus, type SourceCommit, type SourceItem, type SourcePull } from './generate.js';

// The dataset sits at ../shared next to the checkout; ENGRAM_DATASET_DIR points elsewhere (a worktree).
const CORPUS = process.env.ENGRAM_DATASET_DIR
  ? join(process.env.ENGRAM_DATASET_DIR, 'corpus.json')
  : new URL('../../../shared/data/github-prettier/corpus.json', import.meta.url).pathname;
const present = existsSync(CORPUS);
const source: SourceItem[] = present ? (JSON.parse(readFileSync(CORPUS, 'utf8')) as SourceItem[]) : [];
const sourceMax = Math.max(0, ...source.flatMap((i) => (i.type === 'pull_request' ? [(i as SourcePull).number] : [])));

const all = (corpus: GeneratedCorpus) => corpus.repos.flatMap((r) => r.items.map((item) => ({ repo: r.repo, item })));

describe.skipIf(!present)(`scale corpus generator (needs ${CORPUS})`, () => {
  // More than one copy of the source, so recombined copies are covered too.
  const count = 12_345;
  let corpus: GeneratedCorpus;
  beforeAll(() => {
    corpus = generateCorpus(source, { count, seed: 7 });
  });

  it('produces exactly the requested count, deterministically for a seed', () => {
    expect(all(corpus)).toHaveLength(count);
    expect(corpus.copies).toBe(2);
    expect(JSON.stringify(generateCorpus(source, { count, seed: 7 }))).toBe(JSON.stringify(corpus));
    const other = generateCorpus(source, { count, seed: 8 });
    expect(all(other)).toHaveLength(count);
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(corpus));
    expect(all(generateCorpus(source, { count: 1, seed: 7 }))).toHaveLength(1);
  });

  it('gives every item a unique id and a URL in its own repository', () => {
    const ids = new Set<string>();
    for (const { repo, item } of all(corpus)) {
      expect(item.html_url.startsWith(`https://github.com/${repo}/`)).toBe(true);
      ids.add(`${repo}:${item.id}`);
    }
    expect(ids.size).toBe(count);
    const shas = all(corpus).flatMap(({ item }) => (item.type === 'commit' ? [item.sha] : []));
    expect(new Set(shas).size).toBe(shas.length);
  });

  it('keeps pull request <-> commit links inside one repository', () => {
    for (const { repo, items } of corpus.repos) {
      const commits = new Map(items.flatMap((i) => (i.type === 'commit' ? [[i.sha, i as SourceCommit] as const] : [])));
      const numbers = new Set(items.flatMap((i) => (i.type === 'pull_request' ? [i.number] : [])));
      for (const item of items) {
        if (item.type !== 'pull_request') continue;
        expect(item.number).toBeGreaterThan(sourceMax);
        for (const sha of item.commit_shas) expect(commits.has(sha), `${repo}#${item.number} names ${sha}`).toBe(true);
        const squash = commits.get(item.merge_commit_sha!);
        expect(squash, `${repo}#${item.number} squash commit`).toBeDefined();
        expect(squash!.commit.message).toContain(`(#${item.number})`);
      }
      // Every `#N` a text of this repository names at or above the synthetic range is a pull request here.
      for (const item of items) {
        const text = item.type === 'pull_request' ? `${item.title}\n${item.body ?? ''}` : item.commit.message;
        for (const match of text.matchAll(/(?<![\w/])#(\d+)\b/g)) {
          const n = Number(match[1]);
          if (n > sourceMax) expect(numbers.has(n), `${repo}: ${item.id} names #${n}`).toBe(true);
        }
      }
    }
  });

  it('recombines later copies from real text instead of repeating the source', () => {
    const refs = (text: string) => text.replace(/[\w./-]*#\d+/g, '#');
    const titles = new Set(source.flatMap((i) => (i.type === 'pull_request' ? [refs((i as SourcePull).title)] : [])));
    const pulls = all(corpus).flatMap(({ item }) => (item.type === 'pull_request' ? [item] : []));
    for (const pull of pulls) expect(titles.has(refs(pull.title)), pull.title).toBe(true);
    const docs = new Set(pulls.map((p) => `${p.title}\n${p.body ?? ''}\n${p.files.map((f) => f.filename).join(',')}`));
    expect(docs.size).toBeGreaterThan(pulls.length * 0.9);
  });
});
