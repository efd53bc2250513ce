import { lexemes } from '@engram/text';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Words (and the separators between them) as they appear in the text. */
const WORD = /[\p{L}\p{N}_]+/gu;
/** A word (group 1), or a character HTML needs escaped (a word holds none). */
const WORD_OR_ESCAPE = /([\p{L}\p{N}_]+)|[&<>"']/gu;

/** Whether a word of a result's text is one of the query's terms once normalised. */
export type WordMatcher = (word: string) => boolean;

/**
 * The query's word matcher for one page of results: a word's lexemes are worked out once however often
 * it recurs (a page's texts repeat their words: without it, tokenizing every word of ten long bodies was a
 * sixth of what a search allocated).
 */
export function queryWordMatcher(queryTerms: ReadonlySet<string>): WordMatcher {
  const known = new Map<string, boolean>();
  return (word) => {
    let hit = known.get(word);
    if (hit === undefined) {
      hit = lexemes(word).some((t) => queryTerms.has(t));
      known.set(word, hit);
    }
    return hit;
  };
}

/**
 * Wraps each word whose normalised form matches a query term in `<mark>`, and escapes everything else,
 * so no HTML from a source gets through.
 */
export function highlight(text: string, matches: WordMatcher): string {
  // One pass of `replace`: no match object made per word, as `matchAll` makes.
  return text.replace(WORD_OR_ESCAPE, (found: string, word: string | undefined) => (word === undefined ? ESCAPES[found]! : matches(word) ? `<mark>${word}</mark>` : word));
}

/**
 * A query-focused snippet: the window of the text with the most query-term hits (the item's stored
 * preview when nothing matches).
 */
export function focusSnippet(content: string, fallback: string, matches: WordMatcher, width = 240): string {
  const text = content.replace(/\s+/g, ' ').trim();
  if (text.length <= width) return text || fallback;
  const hits: number[] = [];
  text.replace(WORD, (word: string, at: number) => {
    if (matches(word)) hits.push(at);
    return '';
  });
  if (hits.length === 0) return fallback;
  let best = 0;
  let bestCount = 0;
  for (let i = 0, j = 0; i < hits.length; i++) {
    while (hits[i]! - hits[j]! > width * 0.8) j++;
    if (i - j + 1 > bestCount) {
      bestCount = i - j + 1;
      best = hits[j]!;
    }
  }
  let start = Math.max(0, best - 40);
  const space = text.lastIndexOf(' ', start);
  if (start > 0 && space > start - 20) start = space + 1;
  const end = Math.min(text.length, start + width);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
}
