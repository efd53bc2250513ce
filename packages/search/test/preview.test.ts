import { describe, expect, it } from 'vitest';
import { previewOf } from '../src/preview.js';

describe('result preview', () => {
  it("keeps the body's snippet when there is one", () => {
    expect(previewOf('Support decorators on class fields.', ['src/a.js'])).toBe('Support decorators on class fields.');
  });

  it('shows the changed files of a change with no description: code, tests, notes, then snapshots', () => {
    const files = [
      'changelog_unreleased/typescript/19621.md',
      'src/language-js/print/key.js',
      'tests/format/typescript/quote-props/__snapshots__/format.test.js.snap',
      'tests/format/typescript/quote-props/issue-19618.ts',
    ];
    expect(previewOf('', files)).toBe(
      'Changed src/language-js/print/key.js, tests/format/typescript/quote-props/issue-19618.ts, changelog_unreleased/typescript/19621.md, tests/format/typescript/quote-props/__snapshots__/format.test.js.snap',
    );
  });

  it('cuts a long list to the snippet length and says how many files it left out', () => {
    const files = Array.from({ length: 40 }, (_, i) => `src/language-css/printer/part-${i}.js`);
    const preview = previewOf('', files);
    expect(preview.length).toBeLessThanOrEqual(300);
    expect(preview).toMatch(/^Changed src\/language-css\/printer\/part-0\.js, .* and \d+ more files$/);
    const shown = preview.replace(/ and \d+ more files$/, '').split(', ').length;
    expect(preview).toContain(`and ${40 - shown} more files`);
  });

  it('leaves an item with neither body nor files empty', () => {
    expect(previewOf('', [])).toBe('');
  });
});
