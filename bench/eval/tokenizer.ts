/**
 * The tokenizer the lexical baseline uses. `defaultTokenize` is a plain stand-in (lower-case,
 * camelCase/snake_case splitting, light suffix stemming, English stop words) kept here so the
 * baseline runs on its own; the driver passes the product's tokenizer when it exists.
 */
export type Tokenizer = (text: string) => string[];

const STOP_WORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with'.split(' '),
);

/** Light stemming: plural and a few verb endings, never below three letters. */
export function lightStem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(ches|shes|xes|sses|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  return word;
}

/** Splits `fooBar`, `HTTPServer`, `foo_bar` into parts; keeps the whole word as well. */
function parts(word: string): string[] {
  const split = word
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_]+/)
    .filter(Boolean);
  return split.length > 1 ? [word, ...split] : split;
}

export const defaultTokenize: Tokenizer = (text) => {
  const out: string[] = [];
  for (const word of text.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    for (const part of parts(word)) {
      const lower = part.toLowerCase();
      if (lower.length === 0 || STOP_WORDS.has(lower)) continue;
      out.push(lightStem(lower));
    }
  }
  return out;
};
