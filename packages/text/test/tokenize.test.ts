import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pathAreaWords, pathWords, STOP_WORDS, tokenize, tokenizeFields, tokenizeParts, versionTokens } from '../src/index.js';

const QUERIES = new URL('../../../../shared/data/github-prettier/queries.json', import.meta.url).pathname;

const shared = (a: string, b: string): string[] => {
  const right = new Set(tokenize(b));
  return [...new Set(tokenize(a))].filter((t) => right.has(t));
};

describe('tokenize', () => {
  it('lets a changelog query meet its PR title (prettier q0001)', () => {
    const query = 'TypeScript: Preserve quotes for methods named new';
    const title = 'Preserve quotes for `TSMethodSignature` nodes named `new`';
    expect(shared(query, title)).toEqual(expect.arrayContaining(['preserv', 'quot', 'method', 'new']));
  });

  it('splits identifiers and keeps the joined form', () => {
    expect(tokenize('TSMethodSignature')).toEqual(['ts', 'method', 'signatur', 'tsmethodsignatur']);
    expect(tokenize('getHTMLParser')).toEqual(['get', 'html', 'parser', 'gethtmlpars']);
    expect(tokenize('DATABASE_URL')).toEqual(['databas', 'url', 'databaseurl']);
    expect(tokenize('typescript-eslint')).toEqual(['typescript', 'eslint', 'typescripteslint']);
    // Product names are one word: `JavaScript` is not about `java`.
    expect(tokenize('JavaScript and TypeScript on GitHub')).toEqual(['javascript', 'typescript', 'github']);
  });

  it('splits paths on slashes and dots, and finds an identifier inside a path', () => {
    expect(tokenize('src/language-js/print.js')).toEqual(['src', 'languag', 'js', 'languagej', 'print', 'js']);
    expect(shared('language-js printer', 'src/language-js/print/estree.js')).toEqual(['languag', 'js', 'languagej']);
  });

  it('keeps numbers and versions, reading `#123` as `123`', () => {
    expect(tokenize('Update meriyah to v7.2 (#19702)')).toEqual(['updat', 'meriyah', '7.2', '19702']);
    expect(tokenize('[3.9.x] bump 3.0.0')).toEqual(['3.9.x', '3.9', 'bump', '3.0.0', '3.0', '3']);
  });

  it('lets a version meet its release line, and not another line', () => {
    // "TypeScript 4.6 support" is the bump to 4.6.2; "Support TypeScript 5.0" is the PR titled "... 5".
    expect(shared('TypeScript 4.6 support', 'Bump typescript from 4.5.5 to 4.6.2')).toEqual(['typescript', '4.6']);
    expect(shared('Support TypeScript 5.0', 'Support TypeScript 5')).toEqual(['support', 'typescript', '5']);
    expect(shared('Support TypeScript 5.0', 'Support TypeScript 5.3')).toEqual(['support', 'typescript']);
    expect(shared('4.6', '4.60')).toEqual([]);
    expect(versionTokens('v4.0.1')).toEqual(['4.0.1', '4.0', '4']);
    expect(versionTokens('3.9.x')).toEqual(['3.9.x', '3.9']);
  });

  it('keeps statement keywords, and every word inside an identifier', () => {
    // "Fix comments in if" is the PR "Fix comment print in `if`"; `for` is filler in prose only.
    expect(shared('Fix comments in if', 'Fix comment print in `if`')).toEqual(['fix', 'comment', 'if']);
    expect(shared('Fix comments handling for for-statements', 'Fix comment attach in ForXStatement')).toEqual(['fix', 'comment', 'for', 'statement']);
    expect(tokenize('a fix for the parser')).toEqual(['fix', 'parser']);
    expect(tokenize('TSAsExpression')).toEqual(['ts', 'as', 'express', 'tsasexpress']);
    expect(tokenize('ForXStatement IPv6Address')).toEqual(['for', 'statement', 'forxstat', 'ip', 'v6', 'address', 'ipv6address']);
  });

  it('drops stop words, punctuation, Markdown and HTML comments, keeps meaningful short words', () => {
    expect(STOP_WORDS.has('the')).toBe(true);
    expect(tokenize('<!-- Please describe your change -->**Fix** the [`new` keyword](https://github.com/a/b) for it')).toEqual([
      'fix',
      'new',
      'keyword',
      'github',
    ]);
    expect(tokenize("Don't print a semicolon, not ever")).toEqual(['print', 'semicolon', 'not']);
  });

  it('gives inflections one stem', () => {
    const stemOf = (word: string) => tokenize(word)[0];
    expect(stemOf('quotes')).toBe(stemOf('quote'));
    expect(stemOf('parenthesized')).toBe(stemOf('parenthesize'));
    expect(stemOf('methods')).toBe(stemOf('method'));
    expect(stemOf('added')).toBe(stemOf('add'));
    expect(stemOf('formatting')).toBe(stemOf('formatted'));
    expect(stemOf('comments')).toBe(stemOf('commenting'));
  });

  it('tokenizes fields separately, labels with the title', () => {
    const fields = tokenizeFields({
      title: 'Preserve quotes',
      body: 'Fixes #19618',
      files: ['src/language-js/print/key.js'],
      labels: ['lang:typescript'],
    });
    expect(fields).toEqual({
      title: ['preserv', 'quot', 'lang', 'typescript'],
      body: ['fix', '19618'],
      paths: ['src', 'languag', 'js', 'languagej', 'print', 'kei', 'js'],
    });
    expect(tokenizeFields({ title: null, body: '', files: [], labels: [] })).toEqual({ title: [], body: [], paths: [] });
  });

  it("drops a regression fixture's tracker-id word from a path and keeps its number", () => {
    const paths = (file: string) => tokenizeFields({ title: null, body: '', files: [file], labels: [] }).paths;
    expect(paths('tests/format/js/comments/issue-1234.js')).toEqual(['test', 'format', 'js', 'comment', '1234', 'js']);
    expect(paths('tests/gh_77/bug123.ts')).toEqual(['test', '77', '123', 'ts']);
    // The same words not naming an id stay: a directory of issues, a debug module, a tissue.
    expect(paths('src/issues/debug-10.js')).toEqual(['src', 'issu', 'debug', '10', 'js']);
    expect(pathWords('tissue-5.js')).toBe('tissue-5.js');
    // A query that says "issue" no longer meets a fixture path; "#1234" still does.
    expect(paths('tests/issue-1234.js')).not.toContain(tokenize('issue')[0]);
    expect(paths('tests/issue-1234.js')).toContain(tokenize('#1234')[0]);
  });

  it('adds the area a CI or test-runner file stands for, so "tests in CI" meets a workflow change', () => {
    const paths = (file: string) => tokenizeFields({ title: null, body: '', files: [file], labels: [] }).paths;
    const [ci, test] = [tokenize('CI')[0], tokenize('tests')[0]];
    for (const file of ['.github/workflows/prod-test.yml', '.circleci/config.yml', '.gitlab-ci.yml', 'packages/app/.travis.yml', 'Jenkinsfile']) {
      expect(pathAreaWords(file), file).toContain('ci');
      expect(paths(file), file).toContain(ci);
    }
    for (const file of ['jest.config.js', 'packages/api/vitest.config.ts', 'playwright.config.mjs', '.mocharc.json', 'tests/config/format-test/run-test.js', 'test/setup/db.ts', 'conftest.py']) {
      expect(pathAreaWords(file), file).toEqual(['test']);
      expect(paths(file), file).toContain(test);
    }
    // A test case, a source file or a doc about CI names no area: its own words are enough.
    for (const file of ['tests/format/less/comments/jsfmt.spec.js', 'src/language-js/print/ci.js', 'docs/ci.md', '.github/ISSUE_TEMPLATE/bug.md', 'src/jest.js']) {
      expect(pathAreaWords(file), file).toEqual([]);
    }
  });
});

interface Query {
  id: string;
  query: string;
  target_titles: string[];
}

describe.skipIf(!existsSync(QUERIES))('tokenize on prettier changelog queries (needs ../shared/data/github-prettier)', () => {
  // Read only when present: a skipped suite's body still runs while tests are collected.
  const queries = existsSync(QUERIES) ? (JSON.parse(readFileSync(QUERIES, 'utf8')) as Query[]) : [];
  const naive = (s: string): string[] => s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);
  const share = (tokens: (s: string) => string[], q: Query): number => {
    const query = new Set(tokens(q.query));
    const target = new Set(tokens(q.target_titles.join(' ')));
    return query.size === 0 ? 0 : [...query].filter((t) => target.has(t)).length / query.size;
  };

  it('brings queries closer to their target titles than splitting on spaces', () => {
    const ours = queries.map((q) => share(tokenize, q));
    const baseline = queries.map((q) => share(naive, q));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const overlapping = ours.filter((s) => s > 0).length;
    console.log(
      `queries: ${queries.length}; with a token shared with a target title: ${overlapping}; ` +
        `mean share of query tokens found in the target: ${mean(ours).toFixed(3)} (naive split: ${mean(baseline).toFixed(3)})`,
    );
    // Measured 2026-11: 290/312 overlapping; mean share 0.585 vs 0.490 for a naive split.
    expect(overlapping / queries.length).toBeGreaterThanOrEqual(0.9);
    expect(mean(ours)).toBeGreaterThan(mean(baseline) + 0.05);
  });
});

describe('tokenizeParts', () => {
  it('sets the words of a camelCase identifier apart and keeps its joined form whole', () => {
    const { whole, parts } = tokenizeParts('Fix NewExpression callee parens in language-js');
    expect(parts).toEqual(['new', 'express']);
    expect(whole).toEqual(['fix', 'newexpress', 'calle', 'paren', 'languag', 'js', 'languagej']);
  });

  it('holds exactly the tokens of tokenize between its two lists', () => {
    const text = 'TSMethodSignature in src/language-js/print.js, `get_userName()` and v3.0.0 for HTMLParser';
    const { whole, parts } = tokenizeParts(text);
    expect([...whole, ...parts].sort()).toEqual(tokenize(text).sort());
    expect(parts).toEqual(['ts', 'method', 'signatur', 'user', 'name', 'html', 'parser']);
  });
});
