import { describe, expect, it } from 'vitest';
import { areaOfPath, displayDomain, topicalKeyword, topicalLabel } from '../src/actors/domains.js';
import { itemDomains, readableDomains } from '../src/actors/expertise.js';

describe('areaOfPath', () => {
  it('names the area below the places code is kept, in any repository layout', () => {
    expect(areaOfPath('src/language-markdown/print/list.js', true)).toEqual({ area: 'markdown' });
    expect(areaOfPath('changelog_unreleased/markdown')).toEqual({ area: 'markdown' });
    expect(areaOfPath('src/cli/format.js', true)).toEqual({ area: 'cli' });
    expect(areaOfPath('packages/indexer/src/actors/expertise.ts', true)).toEqual({ area: 'indexer' });
    expect(areaOfPath('lib/router/index.js', true)).toEqual({ area: 'router' });
    expect(areaOfPath('scripts/release/steps')).toEqual({ area: 'release' });
    expect(areaOfPath('.github/workflows/ci.yml', true)).toEqual({ area: 'ci' });
    expect(areaOfPath('docs/options.md', true)).toEqual({ area: 'docs' });
  });

  it('collapses language and extension names onto one language, with a topical sub-area when there is one', () => {
    expect(areaOfPath('src/language-js/print/estree.js', true)).toEqual({ area: 'javascript' });
    expect(areaOfPath('tests/format/js/babel-plugins')).toEqual({ area: 'javascript', subArea: 'javascript babel plugins' });
    expect(areaOfPath('tests/format/typescript/decorators/__snapshots__/format.test.js.snap', true)).toEqual({ area: 'typescript', subArea: 'typescript decorators' });
    expect(areaOfPath('src/language-js/comments')).toEqual({ area: 'javascript', subArea: 'javascript comments' });
    expect(areaOfPath('tests/format/yml/comments')).toEqual({ area: 'yaml', subArea: 'yaml comments' });
  });

  it('names nothing for containers alone or files at the root', () => {
    expect(areaOfPath('tests/format')).toBeNull();
    expect(areaOfPath('package.json', true)).toBeNull();
    expect(areaOfPath('src/main.ts', true)).toBeNull();
    // The test harness is not an area of the product.
    expect(areaOfPath('tests/config/format-test')).toBeNull();
    expect(areaOfPath('tests/format/less/less-test-suite')).toEqual({ area: 'less', subArea: 'less test suite' });
  });
});

describe('topical words', () => {
  it('drops stop-like words and trims them from phrases', () => {
    expect(topicalKeyword('potential')).toBeNull();
    expect(topicalKeyword('preserve')).toBeNull();
    expect(topicalKeyword('preserve empty lines')).toBe('empty lines');
    expect(topicalKeyword('markdown urls')).toBe('markdown urls');
    expect(topicalKeyword('avoid extra')).toBeNull();
  });

  it('reads labels as their topic', () => {
    expect(topicalLabel('lang:css')).toBe('css');
    expect(topicalLabel('area/cli')).toBe('cli');
    expect(topicalLabel('type: bug')).toBeNull();
    expect(topicalLabel('dependencies')).toBe('dependencies');
  });

  it('shows languages in their usual spelling', () => {
    expect(displayDomain('typescript decorators')).toBe('TypeScript decorators');
    expect(displayDomain('yaml')).toBe('YAML');
    expect(displayDomain('cli')).toBe('cli');
  });
});

describe('readableDomains', () => {
  const entry = (domain: string, score: number) => ({ domain, score, kind: 'area' as const });

  it('keeps a handful, skips what a shown domain already covers and what scores next to nothing', () => {
    const domains = readableDomains([
      entry('typescript decorators', 1), entry('decorators', 0.9), entry('typescript', 0.8), entry('markdown', 0.7),
      entry('cli', 0.5), entry('yaml', 0.4), entry('css', 0.3), entry('graphql', 0.05),
    ]);
    expect(domains).toEqual(['TypeScript decorators', 'Markdown', 'cli', 'YAML', 'CSS']);
  });
});

describe('title keywords as domains', () => {
  const keyword = (key: string, itemCount: number) => ({ category: 'keyword' as const, key, confidence: 1, idf: Math.log(9367 / (itemCount + 1)), itemCount });

  it('need a few changes of the workspace to carry them: a one-off word is not a topic', () => {
    const domains = itemDomains([keyword('linkfix', 1), keyword('member chain', 40)], undefined, 9366).map((d) => d.key);
    expect(domains).toEqual(['member chain']);
  });

  it('ask less of a small workspace', () => {
    expect(itemDomains([keyword('linkfix', 1)], undefined, 200).map((d) => d.key)).toEqual(['linkfix']);
  });
});
