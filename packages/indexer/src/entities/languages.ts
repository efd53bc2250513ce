/**
 * Languages and parsers an item is about, from its files and its words. Keys are the canonical
 * names: typescript, javascript, css, scss, less, markdown, yaml, graphql, vue, angular,
 * handlebars, json, html, flow, jsx, mdx.
 */

const BY_EXTENSION: ReadonlyMap<string, readonly string[]> = new Map(Object.entries({
  ts: ['typescript'], mts: ['typescript'], cts: ['typescript'], tsx: ['typescript', 'jsx'],
  js: ['javascript'], mjs: ['javascript'], cjs: ['javascript'], jsx: ['javascript', 'jsx'],
  css: ['css'], pcss: ['css'], scss: ['scss'], less: ['less'],
  md: ['markdown'], markdown: ['markdown'], mdx: ['mdx', 'markdown'],
  yml: ['yaml'], yaml: ['yaml'], graphql: ['graphql'], gql: ['graphql'],
  vue: ['vue'], hbs: ['handlebars'], handlebars: ['handlebars'],
  json: ['json'], json5: ['json'], jsonc: ['json'], html: ['html'], htm: ['html'],
}));

/** Directory names that name a language: `tests/format/typescript/`, `src/language-css/`. */
const BY_DIRECTORY: ReadonlyMap<string, readonly string[]> = new Map(Object.entries({
  typescript: ['typescript'], javascript: ['javascript'], js: ['javascript'], jsx: ['jsx'], flow: ['flow'],
  'flow-repo': ['flow'], css: ['css'], scss: ['scss'], less: ['less'], markdown: ['markdown'], mdx: ['mdx'],
  yaml: ['yaml'], graphql: ['graphql'], vue: ['vue'], angular: ['angular'], handlebars: ['handlebars'],
  glimmer: ['handlebars'], json: ['json'], html: ['html'], lwc: ['html'],
}));

/**
 * Files whose extension says what the project is written in or documents, not what the change is
 * about: manifests, configs, test runners, snapshots, docs and changelog entries.
 */
const INCIDENTAL_FILE = /(?:^|\/)(?:readme|changelog|contributing|license)[^/]*$|(?:^|\/)(?:docs?|changelog[\w-]*|blog|\.github)\/|(?:^|\/)(?:package\.json|package-lock\.json|tsconfig[\w.-]*\.json|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?|[^/]*\.config\.[cm]?[jt]s|\.[^/]*rc(?:\.\w+)?)$|__snapshots__\//;

export interface LanguageHit {
  language: string;
  confidence: number;
}

export function languagesFromFiles(files: readonly string[]): LanguageHit[] {
  const hits: LanguageHit[] = [];
  for (const file of files) {
    const segments = file.toLowerCase().split('/');
    for (const dir of segments.slice(0, -1)) {
      const name = dir.startsWith('language-') ? dir.slice('language-'.length) : dir;
      for (const language of BY_DIRECTORY.get(name) ?? []) hits.push({ language, confidence: 0.9 });
    }
    if (INCIDENTAL_FILE.test(file)) continue;
    const last = segments[segments.length - 1] ?? '';
    const extension = last.includes('.') ? last.slice(last.lastIndexOf('.') + 1) : '';
    for (const language of BY_EXTENSION.get(extension) ?? []) hits.push({ language, confidence: 0.8 });
  }
  return hits;
}

// Unambiguous names and aliases, matched case-insensitively as whole words.
const WORD_LANGUAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\btype-?script\b|\bts(?:x)?\b|\btsc\b/i, 'typescript'],
  [/\bjava-?script\b|\bjs\b|\becmascript\b/i, 'javascript'],
  [/\bcss\b|\bpostcss\b/i, 'css'],
  [/\bscss\b|\bsass\b/i, 'scss'],
  [/\bmarkdown\b|\bremark\b/i, 'markdown'],
  [/\bmdx\b/i, 'mdx'],
  [/\bya?ml\b/i, 'yaml'],
  [/\bgraphql\b|\bgql\b/i, 'graphql'],
  [/\bvue\b/i, 'vue'],
  [/\bangular\b/i, 'angular'],
  [/\bhandlebars\b|\bglimmer\b|\bhbs\b/i, 'handlebars'],
  [/\bjson[c5]?\b/i, 'json'],
  [/\bhtml\b/i, 'html'],
  [/\bjsx\b|\btsx\b/i, 'jsx'],
  // `less` and `flow` are English words: only the capitalised name or the backticked parser.
  [/\bLess\b|\bLESS\b|`less`/, 'less'],
  [/\bFlow\b|`flow`|\bflow (?:type|comment|annotation|parser)s?\b/, 'flow'],
];

/** Languages named in `text` (a title scores higher than a body: pass the confidence). */
export function languagesFromWords(text: string, confidence: number): LanguageHit[] {
  const hits: LanguageHit[] = [];
  for (const [pattern, language] of WORD_LANGUAGES) {
    const match = pattern.exec(text);
    // A sentence-initial `Less ...`/`Flow ...` is an English word; `Less:` (a changelog prefix) is not.
    if (match === null) continue;
    if ((language === 'less' || language === 'flow') && match.index === 0 && text[match[0].length] !== ':') continue;
    hits.push({ language, confidence });
  }
  return hits;
}
