/**
 * Splits Markdown-ish text into what the reference and entity patterns read:
 * - `text`: HTML comments, code and commit trailers (`Co-authored-by: ...`) removed (GitHub does not link references inside code), URLs kept;
 * - `prose`: `text` with URLs blanked too, so a sha or path inside a URL is never read twice;
 * - `urls`: the URLs, trailing punctuation trimmed;
 * - `code`: contents of inline code spans and fenced blocks.
 */
export interface Prose {
  text: string;
  prose: string;
  urls: string[];
  code: string[];
}

const TRAILER = /^(?:Co-authored-by|Signed-off-by|Reviewed-by|Acked-by):.*$/gim;
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const FENCED = /^(```|~~~)[^\n]*\n[\s\S]*?(?:^\1[^\n]*$|(?![\s\S]))/gm;
const INLINE_CODE = /`([^`\n]+)`/g;
export const URL_PATTERN = /\bhttps?:\/\/[^\s<>()[\]"'`]+/g;
const TRAILING_PUNCTUATION = /[.,;:!?*_]+$/;

export function readProse(raw: string): Prose {
  const code: string[] = [];
  const text = raw
    .replace(TRAILER, ' ')
    .replace(HTML_COMMENT, ' ')
    .replace(FENCED, (block) => {
      code.push(block);
      return '\n';
    })
    .replace(INLINE_CODE, (_, inner: string) => {
      code.push(inner);
      return ' ';
    });
  const urls: string[] = [];
  const prose = text.replace(URL_PATTERN, (url) => {
    urls.push(url.replace(TRAILING_PUNCTUATION, ''));
    return ' ';
  });
  return { text, prose, urls, code };
}

/** First line of a text: a commit subject, or the title when callers pass `title\n\nbody`. */
export const firstLine = (text: string): string => {
  const end = text.indexOf('\n');
  return (end === -1 ? text : text.slice(0, end)).trim();
};
