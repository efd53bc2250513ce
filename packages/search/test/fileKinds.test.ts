import { describe, expect, it } from 'vitest';
import { computeFeatures, FEATURE_NAMES, symptomMatch } from '../src/rank/features.js';
import { fileKinds } from '../src/rank/fileKinds.js';
import type { Candidate } from '../src/rank/types.js';

describe('what kind of files a change touched', () => {
  it('counts docs and tooling, not test fixtures or release notes', () => {
    expect(fileKinds(['docs/install.md', 'README.md', 'src/index.js', 'scripts/release/publish.js'])).toEqual({ docsShare: 0.5, toolingShare: 0.25, testShare: 0 });
    expect(fileKinds(['tests/format/markdown/list/jsfmt.spec.js', 'tests/format/markdown/list/a.md', 'changelog_unreleased/markdown/123.md'])).toEqual({
      docsShare: 0,
      toolingShare: 0,
      testShare: 2 / 3,
    });
    expect(fileKinds(['.github/workflows/ci.yml', 'package.json', 'yarn.lock'])).toEqual({ docsShare: 0, toolingShare: 1, testShare: 0 });
    expect(fileKinds([])).toEqual({ docsShare: 0, toolingShare: 0, testShare: 0 });
  });
});

describe('intent features', () => {
  const candidate = (id: string, signals: Record<string, number>): Candidate => ({
    id, title: 'Write the release steps down', snippet: '', content: '', type: 'pull_request', source: 'github', occurredAt: '2025-01-01T00:00:00.000Z', fused: 0.5,
    paths: { lexical: 0.5, vector: 0.5, entity: 0, cluster: 0, actor: 0 }, signals,
  });
  const feature = (query: string, name: (typeof FEATURE_NAMES)[number], signals: Record<string, number>) =>
    computeFeatures(query, [candidate('a', signals)])[0]![FEATURE_NAMES.indexOf(name)];

  it('set a candidate signal beside the intent the question has, and nowhere else', () => {
    expect(feature('how do we cut a release', 'howToTimesDocs', { docsShare: 0.5 })).toBe(0.5);
    expect(feature('release steps', 'howToTimesDocs', { docsShare: 0.5 })).toBe(0);
    expect(feature('yaml comment vanishes after formatting', 'bugTimesReleaseNote', { releaseNote: 1 })).toBe(1);
    expect(feature('who knows the release scripts', 'intentPeople', {})).toBe(1);
    expect(feature('what changed in css recently', 'recentPrior', {})).toBe(1);
    expect(feature('css changes', 'recentPrior', {})).toBe(0);
  });
});

describe('bug questions beside what a change is', () => {
  const change = (title: string, signals: Record<string, number>): Candidate => ({
    id: title, title, snippet: '', content: '', type: 'pull_request', source: 'github', occurredAt: '2025-01-01T00:00:00.000Z', fused: 0.5,
    paths: { lexical: 0.5, vector: 0.5, entity: 0, cluster: 0, actor: 0 }, signals,
  });
  const feature = (query: string, name: (typeof FEATURE_NAMES)[number], title: string, signals: Record<string, number> = {}) =>
    computeFeatures(query, [change(title, signals)])[0]![FEATURE_NAMES.indexOf(name)];

  it('marks a change of tests alone, and a sweeping one, for a bug question only', () => {
    const suite = { testShare: 1, fileCount: 400 };
    expect(feature('decorators bug', 'bugTimesTestShare', 'YAML test suite: spec example bug', suite)).toBe(1);
    expect(feature('decorators bug', 'bugTimesLogFileCount', 'YAML test suite: spec example bug', suite)).toBeCloseTo(Math.log1p(400), 6);
    expect(feature('decorators', 'bugTimesTestShare', 'YAML test suite: spec example bug', suite)).toBe(0);
    expect(feature('decorators', 'testShare', 'YAML test suite: spec example bug', suite)).toBe(1);
  });

  it('matches the fault a user reports to the repair a title names', () => {
    expect(symptomMatch('html page with a <constructor> element throws a TypeError', 'Fix crash on CSS custom properties')).toBe(true);
    expect(symptomMatch('angular template comments appear twice after formatting', 'Fix comments get duplicated in angular interpolation')).toBe(true);
    expect(symptomMatch('spaces inside backticks are squeezed, the second one is lost', 'Markdown: Preserve multiple spaces in inline code')).toBe(true);
    expect(symptomMatch('line comment after = gives different output every time I format', 'Fix idempotence issues caused by eol comments')).toBe(true);
    expect(symptomMatch('angular template comments appear twice after formatting', 'Fix crash on CSS custom properties')).toBe(false);
    expect(symptomMatch('decorators', 'Fix crash on decorators')).toBe(false);
    expect(feature('comments are printed twice', 'symptomTitleMatch', 'Fix comment in union type get duplicated')).toBe(1);
  });
});

