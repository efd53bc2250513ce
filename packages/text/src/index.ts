export { pathAreaWords } from './pathAreas.js';
export { pathWords, tokenize, tokenizeFields, tokenizeParts, versionTokens } from './tokenize.js';
export type { TokenizableFields, FieldTokens } from './tokenize.js';
export { STOP_WORDS } from './stopWords.js';
export { stem } from './stem.js';
export { lexemeParts, lexemes, toLexeme } from './lexeme.js';
