import { describe, expect, it } from 'vitest';
import { focusSnippet, highlight, queryWordMatcher } from '../src/highlight.js';

describe('highlight', () => {
  const matches = queryWordMatcher(new Set(['decor', 'yaml']));

  it('marks the words whose normalised form is a query term and escapes every character HTML reads', () => {
    expect(highlight(`Keep <b>decorators</b> & "YAML" front-matter's comments`, matches)).toBe(
      'Keep &lt;b&gt;<mark>decorators</mark>&lt;/b&gt; &amp; &quot;<mark>YAML</mark>&quot; front-matter&#39;s comments',
    );
  });

  it('leaves text with no match and nothing to escape as it is', () => {
    expect(highlight('plain words, no match: 42', matches)).toBe('plain words, no match: 42');
    expect(highlight('', matches)).toBe('');
  });

  it('focuses a long text on the window with the most query words', () => {
    const text = `${'filler '.repeat(80)}the yaml decorators fix keeps yaml comments ${'tail '.repeat(80)}`;
    const snippet = focusSnippet(text, 'fallback', matches);
    expect(snippet).toContain('yaml decorators fix keeps yaml comments');
    expect(snippet.startsWith('…')).toBe(true);
    expect(focusSnippet('filler '.repeat(80), 'fallback', matches)).toBe('fallback');
  });
});
