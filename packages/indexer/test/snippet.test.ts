import { describe, expect, it } from 'vitest';
import { makeSnippet } from '../src/index.js';

describe('snippet', () => {
  it('drops Markdown and HTML noise from a PR template', () => {
    const body = [
      '<!-- Please read the contributing guide -->',
      '## Description',
      '',
      'Fixes **quote** handling in `jsx` attributes. See [#123](https://github.com/o/r/issues/123).',
      '',
      '![screenshot](https://example.com/a.png)',
      '```js',
      'const a = "b";',
      '```',
      '- [x] I’ve added tests',
      '| a | b |',
      '|---|---|',
    ].join('\n');
    expect(makeSnippet(body)).toBe('Description Fixes quote handling in jsx attributes. See #123. const a = "b"; I’ve added tests a b');
  });

  it('cuts long text on a word boundary', () => {
    const snippet = makeSnippet('word '.repeat(200));
    expect(snippet.length).toBeLessThanOrEqual(301);
    expect(snippet.endsWith('word…')).toBe(true);
  });
});
