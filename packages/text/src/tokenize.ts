import { stem } from './stem.js';
import { STOP_WORDS } from './stopWords.js';
import { pathAreaWords } from './pathAreas.js';

/**
 * The lexical tokenizer shared by indexing and querying: both sides must call the same function so
 * that a query word and the word in an item meet on one token.
 *
 * - Lower-cases, strips Markdown/HTML comments/punctuation, drops STOP_WORDS and one-letter words.
 * - Identifiers are split into words: camelCase/PascalCase (`TSMethodSignature` -> `ts`, `method`,
 *   `signature`), snake_case and kebab-case (`language-js` -> `language`, `js`). A compound also
 *   yields its joined form (`tsmethodsignature`, `languagejs`) so an exact identifier in a query
 *   scores above the loose words.
 * - Dots and slashes separate without a joined form (`src/language-js/print.js` -> `src`,
 *   `language`, `js`, `languagejs`, `print`, `js`).
 * - Numbers are kept (`#123` -> `123`); a version stays whole (`v3.0.0` -> `3.0.0`, `3.9.x`) and also
 *   yields the release line it belongs to, so `4.6` meets `4.6.2` and `5.0` meets a bare `5`, while
 *   `5.3` does not meet `5.0` (see versionTokens).
 * - A stop word inside an identifier is a code word, not filler, and is kept: `ForInStatement` and
 *   `for-in` both give `for`, `in`.
 * - Product names like `TypeScript`, `GitHub`, `GraphQL` are not split (see WHOLE_NAMES).
 * - Words of letters a-z are Porter-stemmed (`quotes`/`quote` -> `quot`).
 * Duplicates are kept: term frequency is the caller's signal.
 */

const HTML_COMMENT = /<!--[\s\S]*?-->/g;
const APOSTROPHE = /['\u2019]/g;
/** A run of letters/digits/underscore, possibly joined by `.`, `-` or `/`. */
const CHUNK = /[\p{L}\p{N}_]+(?:[.\-/][\p{L}\p{N}_]+)*/gu;
const VERSION = /^v?\d+(?:\.(?:\d+|x))+$/i;
const HARD_SEPARATOR = /[./]/;
const SOFT_SEPARATOR = /[-_]+/;
const SIMPLE_WORD = /^[a-z0-9]+$/;
/**
 * camelCase/PascalCase words; acronyms stay together (`HTMLParser` -> `HTML`, `Parser`), and so does a
 * one-letter word before a capitalised one (`ForXStatement` -> `For`, `X`, `Statement`).
 */
const CAMEL_WORD = /\p{Lu}{2,}(?=\p{Lu}\p{Ll})|\p{Lu}(?=\p{Lu}\p{Ll}{2})|\p{Lu}?[\p{Ll}\p{N}]+|\p{Lu}+\p{N}*|\p{N}+|[\p{L}\p{N}]+/gu;
const LETTERS = /^[a-z]+$/;
const DIGITS = /^\d+$/;
const MAX_TOKEN_LENGTH = 64;

const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, string>();

const stemCached = (word: string): string => {
  const hit = stemCache.get(word);
  if (hit !== undefined) return hit;
  const stemmed = stem(word);
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(word, stemmed);
  return stemmed;
};

const pushWord = (out: string[], lower: string, inIdentifier = false): void => {
  if (lower.length > MAX_TOKEN_LENGTH) return;
  if (lower.length < 2 && !DIGITS.test(lower)) return;
  if (!inIdentifier && STOP_WORDS.has(lower)) return;
  out.push(LETTERS.test(lower) ? stemCached(lower) : lower);
};

/** Camel-cased names whose parts mislead (`JavaScript` is not about `java`): kept whole. */
const WHOLE_NAMES: ReadonlySet<string> = new Set([
  'typescript', 'javascript', 'coffeescript', 'ecmascript', 'actionscript', 'graphql', 'github',
  'gitlab', 'bitbucket', 'postcss', 'postgresql', 'mongodb', 'mysql', 'sqlite', 'macos', 'iphone',
  'ipad', 'youtube', 'linkedin', 'openai', 'webassembly', 'jquery', 'devtools',
]);

const splitCamel = (part: string): string[] => {
  if (SIMPLE_WORD.test(part) || WHOLE_NAMES.has(part.toLowerCase())) return [part];
  return part.match(CAMEL_WORD) ?? [];
};

/**
 * Where the words of a camelCase/PascalCase identifier go: `null` keeps them among the whole words (the
 * default of `tokenize`), an array collects them apart (`tokenizeParts`).
 */
type PartSink = string[] | null;

/** One dot/slash-free segment such as `language-js`, `TSMethodSignature` or `DATABASE_URL`. */
const pushSegment = (out: string[], segment: string, parts: PartSink = null): void => {
  const words: string[] = [];
  const camel: boolean[] = [];
  for (const part of segment.split(SOFT_SEPARATOR)) {
    if (part === '') continue;
    const split = splitCamel(part);
    for (const word of split) {
      words.push(word.toLowerCase());
      camel.push(split.length > 1);
    }
  }
  for (const [i, word] of words.entries()) pushWord(camel[i] === true && parts !== null ? parts : out, word, words.length > 1);
  if (words.length > 1 && !words.some((w) => DIGITS.test(w))) {
    const joined = words.join('');
    if (joined.length <= MAX_TOKEN_LENGTH) out.push(LETTERS.test(joined) ? stemCached(joined) : joined);
  }
};

/**
 * A version and the release lines it belongs to: `4.6.2` -> `4.6.2`, `4.6`; `5.0` -> `5.0`, `5`;
 * `3.0.0` -> `3.0.0`, `3.0`, `3`. A shorter form is added only by dropping a patch number or zeros, so a
 * query for `4.6` finds `4.6.2`, and `TypeScript 5.0` finds `TypeScript 5`, but `5.3` never meets `5.0`.
 */
export function versionTokens(version: string): string[] {
  const parts = version.replace(/^v/i, '').toLowerCase().split('.');
  const out = [parts.join('.')];
  let end = parts.length;
  // Drop the patch number (x.y.z -> x.y), then trailing zeros (x.0 -> x).
  if (end >= 3) out.push(parts.slice(0, (end = 2)).join('.'));
  while (end > 1 && parts[end - 1] === '0') out.push(parts.slice(0, --end).join('.'));
  return out;
}

const pushChunk = (out: string[], chunk: string, parts: PartSink): void => {
  if (VERSION.test(chunk)) {
    out.push(...versionTokens(chunk));
    return;
  }
  if (!HARD_SEPARATOR.test(chunk)) {
    pushSegment(out, chunk, parts);
    return;
  }
  for (const segment of chunk.split(HARD_SEPARATOR)) if (segment !== '') pushSegment(out, segment, parts);
};

function tokenizeInto(text: string, out: string[], parts: PartSink): void {
  if (text === '') return;
  const cleaned = text.replace(HTML_COMMENT, ' ').replace(APOSTROPHE, '');
  for (const match of cleaned.matchAll(CHUNK)) pushChunk(out, match[0], parts);
}

export function tokenize(text: string): string[] {
  const out: string[] = [];
  tokenizeInto(text, out, null);
  return out;
}

/**
 * `tokenize` with the words of a camelCase/PascalCase identifier set apart: `whole` holds every other
 * token (plain words, snake/kebab-case words, the identifier's joined form `newexpress`), `parts` the
 * camelCase words (`new`, `express`). The index weighs a part below a whole word, so a question that says
 * "new" as a word is not answered by every `NewExpression` change on that word alone, while "new
 * expression" still finds it. `whole` and `parts` together hold exactly the tokens of `tokenize`.
 */
export function tokenizeParts(text: string): { whole: string[]; parts: string[] } {
  const whole: string[] = [];
  const parts: string[] = [];
  tokenizeInto(text, whole, parts);
  return { whole, parts };
}

/**
 * Regression fixtures are often named after the report they reproduce (`issue-1234.js`, `gh_77/`,
 * `bug123.ts`). There the word says only "a tracker id follows", not what the change is about, and
 * matching it made a query that says "issue" or "bug" favour every change that added such a fixture.
 * The word goes; the number stays, so `#1234` still meets `issue-1234.js`.
 */
const TRACKER_ID_WORD = /(?<![\p{L}\p{N}])(?:issues?|bugs?|gh|regression)[-_]?(?=\d)/giu;

/**
 * A changed file's path as the words it contributes to the paths field: its own words, then the area
 * words it stands for by convention (`pathAreaWords`: a workflow file adds "ci", a test runner's config
 * "test").
 */
export function pathWords(file: string): string {
  const words = file.replace(TRACKER_ID_WORD, ' ');
  const areas = pathAreaWords(file);
  return areas.length === 0 ? words : `${words} ${areas.join(' ')}`;
}

export interface TokenizableFields {
  title: string | null;
  body: string;
  files: readonly string[];
  labels: readonly string[];
}

export interface FieldTokens {
  /** Title words plus label words (labels are short topic names, as salient as a title). */
  title: string[];
  body: string[];
  /** Words of every changed file path, in file order. */
  paths: string[];
}

export function tokenizeFields(fields: TokenizableFields): FieldTokens {
  const title = tokenize(fields.title ?? '');
  for (const label of fields.labels) title.push(...tokenize(label));
  const paths: string[] = [];
  for (const file of fields.files) paths.push(...tokenize(pathWords(file)));
  return { title, body: tokenize(fields.body), paths };
}
