import { tokenize, tokenizeParts } from './tokenize.js';

/**
 * A token as a Postgres lexeme: letters and digits only, so Postgres' text-search parser keeps it whole
 * (`v0.8.0` -> `v080`, `tsmethodsignatur` stays). Indexing and querying both go through this, so what
 * the tokenizer matched, the full-text index matches.
 */
export const toLexeme = (token: string): string => token.normalize('NFKC').replace(/[^\p{L}\p{N}]/gu, '');

/** `tokenize` then `toLexeme`, dropping empties: the terms of a tsvector or a tsquery. */
export function lexemes(text: string): string[] {
  const out: string[] = [];
  for (const t of tokenize(text)) {
    const l = toLexeme(t);
    if (l) out.push(l);
  }
  return out;
}

const toLexemes = (tokens: readonly string[]): string[] => {
  const out: string[] = [];
  for (const t of tokens) {
    const l = toLexeme(t);
    if (l) out.push(l);
  }
  return out;
};

/** `tokenizeParts` then `toLexeme`: whole-word lexemes and the lexemes of camelCase words, apart. */
export function lexemeParts(text: string): { whole: string[]; parts: string[] } {
  const { whole, parts } = tokenizeParts(text);
  return { whole: toLexemes(whole), parts: toLexemes(parts) };
}
