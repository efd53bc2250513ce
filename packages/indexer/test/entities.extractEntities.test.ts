import { describe, expect, it } from 'vitest';
import { extractEntities } from '../src/entities/extractEntities.js';
import { hasPrettierData, readJson, titleAndBody, toEntityInput, type RestItem } from '../src/testing/prettierCorpus.js';
import { classifyPath, pathAreas } from '../src/entities/paths.js';
import type { EntityInput, ExtractedEntity } from '../src/entities/types.js';

const ids = (entities: ExtractedEntity[]): string[] => entities.map((e) => `${e.category}:${e.key}`);
const confidenceOf = (entities: ExtractedEntity[], id: string): number | undefined =>
  entities.find((e) => `${e.category}:${e.key}` === id)?.confidence;

const textItem = (title: string, body = ''): EntityInput => ({
  source: 'github',
  type: 'pull_request',
  title,
  body,
  files: [],
  labels: [],
  container: 'prettier/prettier',
  actors: [],
  keys: [],
  refs: [],
  metadata: {},
});

describe('pathAreas', () => {
  it('keeps 1-3 meaningful directory levels', () => {
    expect(pathAreas('src/language-js/print/estree.js')).toEqual(['src/language-js', 'src/language-js/print']);
    expect(pathAreas('tests/format/js/babel-plugins/__snapshots__/format.test.js.snap')).toEqual([
      'tests/format',
      'tests/format/js',
      'tests/format/js/babel-plugins',
    ]);
    expect(pathAreas('package.json')).toEqual([]);
  });
});

describe('classifyPath', () => {
  it('knows tool dotfiles by convention, whichever tool they belong to', () => {
    for (const name of ['.npmrc', '.eslintrc', '.stylelintrc', '.prettierrc', '.lintstagedrc', '.gitignore', '.dockerignore', '.vscodeignore']) {
      expect(classifyPath(name), name).toBe('file');
    }
    expect(classifyPath('.src')).toBeNull();
    expect(classifyPath('.d.ts')).toBeNull();
    expect(classifyPath('.rc')).toBeNull();
  });

  it('marks an extension-less path by generic first directories only', () => {
    expect(classifyPath('src/language-js/')).toBe('path');
    expect(classifyPath('docs/guides')).toBe('path');
    // One repository's own directory name is no evidence of a path on its own; with an extension it is a file.
    expect(classifyPath('changelog_unreleased/typescript')).toBeNull();
    expect(classifyPath('changelog_unreleased/typescript/19621.md')).toBe('file');
  });
});

describe('extractEntities from text patterns', () => {
  it('finds what a developer would point at in a PR description', () => {
    const entities = extractEntities(
      textItem(
        'Use `DATABASE_URL` in preview deployments',
        [
          'Thanks @fisker! Calls `POST /v1/search` on feature/search-cache before deploying to production.',
          'Touches src/language-js/print/estree.js and `.prettierrc`; see ENG-42.',
          'import { parse } from "@babel/parser";',
          'Set process.env.NODE_ENV and check commit 4e88b842aed52bb42b94537ad9736eac06930266.',
        ].join('\n'),
      ),
    );
    expect(ids(entities)).toEqual(
      expect.arrayContaining([
        'person:fisker',
        'endpoint:POST /v1/search',
        'branch:feature/search-cache',
        'environment:production',
        'environment:preview',
        'file:src/language-js/print/estree.js',
        'file:.prettierrc',
        'linear_issue:ENG-42',
        'package:@babel/parser',
        'env_var:DATABASE_URL',
        'env_var:NODE_ENV',
        'commit:4e88b842aed52bb42b94537ad9736eac06930266',
      ]),
    );
    // Only the repository (the item's container) is structured here; everything else came from text.
    for (const entity of entities.filter((e) => e.category !== 'repository')) expect(entity.confidence).toBeLessThan(1);
  });

  it('does not mistake versions, colours, e-mails, encodings, URLs or product names for entities', () => {
    const entities = extractEntities(
      textItem(
        'Release 3.0.0',
        [
          'Upgrade from v2.8.8 to 3.0.0. Contact foo@bar.com or <lionkay@gmail.com>.',
          'Colours #fff and #a1b2c3 stay; files are read as UTF-8 and ISO-8601 dates; SHA-256 digests.',
          'Docs at https://prettier.io/docs/en/options.html and https://github.com/prettier/prettier/blob/main/src/index.js',
          'Works on Node.js and Vue.js. Installs `@prettier/plugin-oxc@0.2.2`.',
        ].join('\n'),
      ),
    );
    const found = ids(entities);
    expect(found).not.toEqual(expect.arrayContaining([expect.stringMatching(/^(?:file|path|commit|linear_issue):/)]));
    expect(found).not.toContain('person:bar');
    expect(found).not.toContain('person:gmail');
    expect(found).not.toContain('person:prettier');
    expect(found).toContain('package:@prettier/plugin-oxc');
  });

  it('reads the environment only where it is used as one', () => {
    const fromDependabot = extractEntities(textItem('Bump x', 'dependency-type: direct:production'));
    expect(ids(fromDependabot)).not.toContain('environment:production');
    expect(ids(extractEntities(textItem('Crash in production builds')))).toContain('environment:production');
  });
});

describe.skipIf(!hasPrettierData())('extractEntities on real prettier items (needs ../shared/data/github-prettier)', () => {
  // Read only when present: a skipped suite's body still runs while tests are collected.
  const corpus = hasPrettierData() ? readJson<RestItem[]>('corpus.json') : [];
  const item = (id: string): RestItem => {
    const found = corpus.find((x) => x.id === id);
    if (found === undefined) throw new Error(`${id} missing from corpus.json`);
    return found;
  };

  it('PR #19621: author, files and their areas, language, own key, commits, title keywords', () => {
    const entities = extractEntities(toEntityInput(item('pull_request:19621')));
    expect(ids(entities)).toEqual(
      expect.arrayContaining([
        'person:konv-suu',
        'repository:prettier/prettier',
        'file:src/language-js/print/key.js',
        'path:src/language-js/print',
        'path:tests/format/typescript/quote-props',
        'language:typescript',
        'pull_request:prettier/prettier#19621',
        'commit:5f2c401ab0cee93602320ed9f0cfb3d8c04f5182',
        'keyword:tsmethodsignature',
        'keyword:preserve quotes',
      ]),
    );
    expect(confidenceOf(entities, 'file:src/language-js/print/key.js')).toBe(1);
    expect(ids(entities)).not.toContain('keyword:for');
  });

  it('commit of #7111: refs, a PR URL, short shas, a co-author and a scoped package', () => {
    const entities = extractEntities(toEntityInput(item('commit:eed53fc29a36a0d045a3768e1aba2f61cb5b593a')));
    expect(ids(entities)).toEqual(
      expect.arrayContaining([
        'pull_request:prettier/prettier#7111',
        'pull_request:prettier/prettier#16601',
        'issue:prettier/prettier#3806',
        'commit:1dfe28f85',
        'commit:c7066780e',
        'person:fisker cheung',
        'package:@btmills/prettier',
        'keyword:binary operators',
      ]),
    );
    expect(confidenceOf(entities, 'commit:1dfe28f85')).toBeLessThan(confidenceOf(entities, 'issue:prettier/prettier#3806') ?? 0);
  });

  it('PR #15394: cross-repository references and @mentions', () => {
    const entities = extractEntities(toEntityInput(item('pull_request:15394')));
    expect(ids(entities)).toEqual(
      expect.arrayContaining([
        'issue:josephfrazier/editorconfig-to-prettier#21',
        'issue:prettier/prettier#14514',
        'person:drakmyth',
        'person:fisker',
        'file:.editorconfig',
      ]),
    );
  });

  it('merge commits name their branches; dependency bumps name their package', () => {
    const merge = extractEntities(toEntityInput(item('commit:aaffacce2ce5cd42657ac7bede3f7cd1c410ec22')));
    expect(ids(merge)).toEqual(expect.arrayContaining(['branch:main', 'branch:next', 'file:scripts/release/release.js']));
    expect(ids(merge)).not.toContain('branch:remotes/upstream/main');

    const renovate = extractEntities(toEntityInput(item('commit:ec3f1c7bd74495992bc6954323a1a7fc8368808e')));
    expect(ids(renovate)).toEqual(expect.arrayContaining(['package:typescript-eslint', 'person:fisker', 'pull_request:prettier/prettier#19675']));
    const dependabot = extractEntities(toEntityInput(item('commit:8de65256177d3b5ef749f3be0adbaefc83ee3563')));
    expect(ids(dependabot)).toContain('package:js-yaml');
    expect(ids(dependabot)).not.toContain('keyword:across');
  });

  it('across a sample of the corpus, no entity is a version, URL, e-mail domain or colour', () => {
    const sample = corpus.filter((_, i) => i % 5 === 0);
    const bad: string[] = [];
    for (const restItem of sample) {
      const { title, body } = titleAndBody(restItem);
      const text = `${title}\n${body}`;
      const domains = new Set([...text.matchAll(/[\w.+-]+@([\w-]+)\.[\w.]+/g)].map((m) => (m[1] ?? '').toLowerCase()));
      for (const e of extractEntities(toEntityInput(restItem))) {
        if (e.confidence === 1) continue;
        const looksWrong =
          ((e.category === 'file' || e.category === 'path' || e.category === 'commit') && /^v?\d+(?:\.\d+)+$|^https?:|@/.test(e.key)) ||
          (e.category === 'person' && domains.has(e.key)) ||
          (e.category === 'commit' && text.includes(`#${e.key}`));
        if (looksWrong) bad.push(`${restItem.id} ${e.category}:${e.key}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
