import { describe, expect, it } from 'vitest';
import { computeFeatures, FEATURE_NAMES } from '../src/rank/features.js';
import { fileKinds } from '../src/rank/fileKinds.js';
import type { Candidate } from '../src/rank/types.js';

describe('what kind of files a change touched', () => {
  it('counts docs and tooling, not test fixtures or release notes', () => {
    expect(fileKinds(['docs/install.md', 'README.md', 'src/index.js', 'scripts/release/publish.js'])).toEqual({ docsShare: 0.5, toolingShare: 0.25 });
    expect(fileKinds(['tests/format/markdown/list/jsfmt.spec.js', 'tests/format/markdown/list/a.md', 'changelog_unreleased/markdown/123.md'])).toEqual({ docsShare: 0, toolingShare: 0 });
    expect(fileKinds(['.github/workflows/ci.yml', 'package.json', 'yarn.lock'])).toEqual({ docsShare: 0, toolingShare: 1 });
    expect(fileKinds([])).toEqual({ docsShare: 0, toolingShare: 0 });
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
