/**
 * A short plain-text preview of an item's body for result lists: Markdown and HTML noise removed
 * (comments, code fences, images, link targets, headings, emphasis, tables, task boxes, quotes),
 * whitespace collapsed, cut on a word boundary.
 */
export const SNIPPET_LENGTH = 300;

const RULES: [RegExp, string][] = [
  [/<!--[\s\S]*?-->/g, ' '],
  [/^\s*(```|~~~)[^\n]*$/gm, ' '],
  [/!\[[^\]]*\]\([^)]*\)/g, ' '],
  [/\[([^\]]*)\]\([^)]*\)/g, '$1'],
  [/\[([^\]]+)\]\[[^\]]*\]/g, '$1'],
  [/^\s*\[[^\]]+\]:\s*\S+.*$/gm, ' '],
  [/<\/?[a-z][^>]*>/gi, ' '],
  [/^\s{0,3}#{1,6}\s+/gm, ''],
  [/^\s*>+\s?/gm, ''],
  [/^\s*[-*+]\s+\[[ xX]\]\s+/gm, ''],
  [/^\s*(?:[-*+]|\d+[.)])\s+/gm, ''],
  [/^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-{0,}:?\s*$/gm, ' '],
  [/\|/g, ' '],
  [/^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/gm, ' '],
  [/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2'],
  [/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1$2'],
  [/(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?!\w)/g, '$1$2'],
  [/~~(.*?)~~/g, '$1'],
  [/`+/g, ''],
  [/&nbsp;/g, ' '],
];

export function plainText(markdown: string): string {
  let text = markdown.replace(/\r\n?/g, '\n');
  for (const [pattern, replacement] of RULES) text = text.replace(pattern, replacement);
  return text.replace(/\s+/g, ' ').trim();
}

export function makeSnippet(body: string, length = SNIPPET_LENGTH): string {
  const text = plainText(body);
  if (text.length <= length) return text;
  const cut = text.slice(0, length);
  const space = cut.lastIndexOf(' ');
  return `${(space > length * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}
