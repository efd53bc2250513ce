import { describe, expect, it } from 'vitest';
import { hasPrettierData, readJson, titleAndBody, type Link, type RestItem } from '../src/testing/prettierCorpus.js';
import { extractTextRefs, normalizeTitleKey, squashMergeNumber } from '../src/entities/textRefs.js';

const ctx = { repo: 'prettier/prettier' };
const refsOf = (text: string, context: Parameters<typeof extractTextRefs>[1] = ctx) =>
  Object.fromEntries(extractTextRefs(text, context).map((r) => [r.key, r.relation]));

describe('extractTextRefs on real prettier text', () => {
  it('reads GitHub closing keywords as fixes, the rest as references', () => {
    expect(refsOf('Correct text identification in liquid syntax\n\nfix #19488')).toEqual({ 'gh:prettier/prettier#19488': 'fixes' });
    expect(refsOf('Fixes https://github.com/prettier/prettier/issues/14168')).toEqual({ 'gh:prettier/prettier#14168': 'fixes' });
    expect(refsOf('Add test to close #14635')).toEqual({ 'gh:prettier/prettier#14635': 'fixes' });
    expect(refsOf('Closes: #11553, #11554 and #11555')).toEqual({
      'gh:prettier/prettier#11553': 'fixes',
      'gh:prettier/prettier#11554': 'fixes',
      'gh:prettier/prettier#11555': 'fixes',
    });
    expect(refsOf('Rewrite tests for #17857')).toEqual({ 'gh:prettier/prettier#17857': 'references' });
    expect(refsOf('Refs #3806')).toEqual({ 'gh:prettier/prettier#3806': 'references' });
    expect(refsOf('see josephfrazier/editorconfig-to-prettier#21')).toEqual({ 'gh:josephfrazier/editorconfig-to-prettier#21': 'references' });
    expect(refsOf('Extracts test cases that I added for https://github.com/prettier/prettier/pull/13183')).toEqual({
      'gh:prettier/prettier#13183': 'references',
    });
  });

  it('gives a squash-merge suffix 0.95 and exposes its number', () => {
    const [ref] = extractTextRefs('Update meriyah to v7.2 (#19702)', ctx);
    expect(ref).toEqual({ key: 'gh:prettier/prettier#19702', relation: 'references', confidence: 0.95 });
    expect(squashMergeNumber('Update meriyah to v7.2 (#19702)')).toBe(19702);
    expect(squashMergeNumber('Fix #19488 in liquid')).toBeNull();
    expect(squashMergeNumber('Revert "Fix tests (#13853)"')).toBeNull();
  });

  it('reads reverts from titles and from git revert bodies', () => {
    expect(refsOf('Revert "Fix unstable comments around parenthesized expressions (#19273)" (#19274)')).toEqual({
      'gh:prettier/prettier#19273': 'reverts',
      'gh:prettier/prettier#19274': 'references',
    });
    expect(refsOf('Revert "Print `;` for module declaration and declare function" (#18852) (#19333)')).toEqual({
      'gh:prettier/prettier#18852': 'reverts',
      'gh:prettier/prettier#19333': 'references',
    });
    expect(refsOf('Revert #19150 (#19470)')).toEqual({ 'gh:prettier/prettier#19150': 'reverts', 'gh:prettier/prettier#19470': 'references' });
    // GitHub cut this title before its closing quote.
    expect(refsOf('Revert "Use `prettier.prettier-vscode` instead of the legacy one (#18374) (#18662)')).toMatchObject({
      'gh:prettier/prettier#18374': 'reverts',
    });
    expect(refsOf('Revert "DEBUG pkg-pr-new"\r\n\r\nThis reverts commit ade850d708c97dd9aee89cf94e1ed9b18ef465ae.')).toEqual({
      'title:debug pkg-pr-new': 'reverts',
      'commit:ade850d708c97dd9aee89cf94e1ed9b18ef465ae': 'reverts',
    });
    expect(refsOf('Revert changes in release script')).toEqual({});
  });

  it('normalises titles the same way on both sides of a revert', () => {
    expect(normalizeTitleKey('  Support  type cast comments for `espree` parser (#17587)')).toBe('support type cast comments for `espree` parser');
    expect(normalizeTitleKey('DEBUG pkg-pr-new')).toBe('debug pkg-pr-new');
  });

  it('keeps commit keys for full shas only', () => {
    const text = 'I rebased from 1dfe28f85 to c7066780e; see https://github.com/prettier/prettier/commit/6ed29ee10ec62a7455fd0700711d244ef8938f46';
    expect(refsOf(text)).toEqual({ 'commit:6ed29ee10ec62a7455fd0700711d244ef8938f46': 'references' });
    // A sha inside a compare URL belongs to another repository's history: not read as a bare sha.
    const compare = '[Compare](https://github.com/github/codeql-action/compare/3599b3baa15b485a2e49ef411a7a4bb2452e7f93...64d10c13136e1c5bce3e5fbde8d4906eeaafc885)';
    expect(refsOf(compare)).toEqual({});
  });

  it('reads Linear keys, but not standards, encodings or CVEs', () => {
    expect(refsOf('Implements ENG-123, see https://linear.app/acme/issue/OPS-7/flaky-deploys')).toEqual({
      'linear:ENG-123': 'references',
      'linear:OPS-7': 'references',
    });
    expect(refsOf('Read files as UTF-8, dates as ISO-8601, hash with SHA-256, target ES-2015; CVE-2024-4067')).toEqual({});
    expect(refsOf('ENG-12 and WEB-3', { linearTeams: ['ENG'] })).toEqual({ 'linear:ENG-12': 'references' });
  });

  it('ignores code, HTML entities, colours and bare numbers without a repository', () => {
    expect(refsOf('Use `#123` as the anchor, escape as &#123;, colour #0a0a0a, then color: #333')).toEqual({});
    expect(refsOf('```js\n// fixes #99\n```\nnothing else')).toEqual({});
    expect(refsOf('Fixes #12', {})).toEqual({});
    expect(refsOf('<!-- Fixes #12 -->')).toEqual({});
  });
});

type Corpus = RestItem[];

describe.skipIf(!hasPrettierData())('extractTextRefs against links.json (needs ../shared/data/github-prettier)', () => {
  // Read only when present: a skipped suite's body still runs while tests are collected.
  const corpus = hasPrettierData() ? readJson<Corpus>('corpus.json') : [];
  const links = hasPrettierData() ? readJson<Link[]>('links.json') : [];
  const byId = new Map(corpus.map((item) => [item.id, item]));
  const textOf = (item: RestItem): string => {
    const { title, body } = titleAndBody(item);
    return `${title}\n\n${body}`;
  };
  // How the indexer resolves keys: a commit also answers to the PR number of its squash subject,
  // and a `title:` key to every item with that normalised title.
  const keysOfTarget = (id: string): string[] => {
    const [kind, value = ''] = id.split(':');
    if (kind !== 'commit') return [`gh:prettier/prettier#${value}`];
    const item = byId.get(id);
    const squash = item === undefined ? null : squashMergeNumber(titleAndBody(item).title);
    return [`commit:${value}`, ...(squash === null ? [] : [`gh:prettier/prettier#${squash}`])];
  };
  const idsByTitle = new Map<string, string[]>();
  for (const item of corpus) {
    const key = `title:${normalizeTitleKey(titleAndBody(item).title)}`;
    idsByTitle.set(key, [...(idsByTitle.get(key) ?? []), item.id]);
  }

  // Every explicit edge, plus every 10th squash-commit edge (they are uniform; 443 is plenty).
  const explicit = links.filter((l) => ['fixes_issue', 'references_pr', 'reverts'].includes(l.type));
  const commitPr = links.filter((l) => l.type === 'commit_pr').filter((_, i) => i % 10 === 0);
  const sample = [...explicit, ...commitPr].filter((l) => byId.has(l.source));
  const refsBySource = new Map<string, ReturnType<typeof extractTextRefs>>();
  for (const link of sample) {
    const item = byId.get(link.source);
    if (item !== undefined && !refsBySource.has(link.source)) refsBySource.set(link.source, extractTextRefs(textOf(item), ctx));
  }

  it('recovers the linked items from text (recall per link type)', () => {
    const recall: Record<string, string> = {};
    for (const type of ['fixes_issue', 'references_pr', 'reverts', 'commit_pr']) {
      const edges = sample.filter((l) => l.type === type);
      const found = edges.filter((link) => {
        const keys = new Set((refsBySource.get(link.source) ?? []).flatMap((r) => [r.key, ...(idsByTitle.get(r.key) ?? []).flatMap(keysOfTarget)]));
        return keysOfTarget(link.target).some((k) => keys.has(k));
      });
      recall[type] = `${found.length}/${edges.length}`;
      // Measured 2026-11: 16/16, 27/27, 34/34, 443/443.
      expect(found.length / edges.length, type).toBeGreaterThanOrEqual(0.95);
    }
    console.log('text-ref recall against links.json', recall);
  });

  it('rarely produces a GitHub reference that no link confirms (precision lower bound)', () => {
    const linked = new Set(links.map((l) => `${l.source}>${l.target.replace(/^(?:issue|pull_request):/, '')}`));
    let total = 0;
    let confirmed = 0;
    for (const [sourceId, refs] of refsBySource) {
      const item = byId.get(sourceId);
      const squash = item === undefined ? null : squashMergeNumber(titleAndBody(item).title);
      // A squash commit speaks for its PR: the PR carries the labelled edges.
      const sources = [sourceId, ...(squash === null ? [] : [`pull_request:${squash}`])];
      for (const ref of refs.filter((r) => r.key.startsWith('gh:'))) {
        const n = ref.key.slice(ref.key.indexOf('#') + 1);
        total++;
        if (sources.some((s) => s === `pull_request:${n}` || linked.has(`${s}>${n}`))) confirmed++;
      }
    }
    console.log(`gh refs confirmed by links.json: ${confirmed}/${total}`);
    // Measured 2026-11: the unconfirmed are real mentions links.json does not label (other repositories).
    expect(confirmed / total).toBeGreaterThanOrEqual(0.97);
  });
});
