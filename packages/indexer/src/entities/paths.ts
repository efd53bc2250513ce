/**
 * File paths: the directory areas a changed file belongs to, and whether a word in text is a path.
 */

/** Directory names that say where code lives, not what it is about. */
const GENERIC_DIRS: ReadonlySet<string> = new Set([
  'src', 'lib', 'libs', 'source', 'sources', 'test', 'tests', '__tests__', 'spec', 'specs',
  '__snapshots__', 'snapshots', '__fixtures__', 'fixtures', '__mocks__', 'dist', 'build', 'out',
  'packages', 'apps', 'app', 'internal', 'pkg', 'cmd', 'main', 'node_modules', 'vendor', '.',
]);

const MAX_MEANINGFUL_LEVELS = 3;

/**
 * Directory prefixes of `file` that end in a meaningful directory and hold 1-3 meaningful levels:
 * `src/language-js/print/estree.js` -> `src/language-js`, `src/language-js/print`;
 * `tests/format/js/babel-plugins/__snapshots__/x.snap` -> `tests/format`, `tests/format/js`,
 * `tests/format/js/babel-plugins`. Root files have none.
 */
export function pathAreas(file: string): string[] {
  const dirs = file.replace(/^\.\//, '').split('/').slice(0, -1);
  const areas: string[] = [];
  let meaningful = 0;
  for (let i = 0; i < dirs.length && meaningful < MAX_MEANINGFUL_LEVELS; i++) {
    const dir = dirs[i] ?? '';
    if (dir === '' || isGenericDir(dir)) continue;
    meaningful++;
    areas.push(dirs.slice(0, i + 1).join('/'));
  }
  return areas;
}

export const isGenericDir = (dir: string): boolean => GENERIC_DIRS.has(dir.toLowerCase());

export const FILE_EXTENSIONS: ReadonlySet<string> = new Set([
  'js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'json', 'jsonc', 'json5', 'md', 'mdx',
  'markdown', 'css', 'scss', 'sass', 'less', 'styl', 'html', 'htm', 'vue', 'svelte', 'astro', 'yml',
  'yaml', 'toml', 'lock', 'snap', 'graphql', 'gql', 'hbs', 'handlebars', 'txt', 'sh', 'bash', 'py',
  'rb', 'go', 'rs', 'java', 'kt', 'swift', 'php', 'c', 'h', 'cc', 'cpp', 'hpp', 'cs', 'xml', 'svg',
  'png', 'jpg', 'jpeg', 'gif', 'ico', 'wasm', 'sql', 'ini', 'cfg', 'conf', 'map', 'log', 'patch',
  'diff', 'env', 'prisma', 'proto', 'tf', 'zig', 'dockerfile',
]);

/** Extension-less file names and dotfiles that are files whenever they appear. */
const KNOWN_FILE_NAMES: ReadonlySet<string> = new Set([
  'dockerfile', 'makefile', 'license', 'readme', 'changelog', 'codeowners', '.editorconfig',
  '.gitattributes', '.env', '.git-blame-ignore-revs',
]);

/**
 * Tool dotfiles by the two conventions most tools follow: a run-commands config (`.npmrc`, `.eslintrc`,
 * `.babelrc`, `.nvmrc`) and an ignore list (`.gitignore`, `.npmignore`, `.dockerignore`). Two letters at
 * least before `rc`, so `.src` is not one.
 */
const TOOL_DOTFILE = /^\.[a-z][a-z0-9-]+rc$|^\.[a-z][a-z0-9-]*ignore$/;

/** First directories that mark a slash-separated word as a repository path even without extension. */
const KNOWN_ROOTS: ReadonlySet<string> = new Set([
  'src', 'lib', 'test', 'tests', 'scripts', 'packages', 'docs', 'website', 'bin', '.github', 'apps',
  'services', 'config', 'benchmarks', 'bench', 'tools', 'infra',
]);

export type PathKind = 'file' | 'path';

/** A path as written, without `./`, trailing punctuation, trailing `/` or a glob tail (`src/**`). */
export function cleanPath(word: string): string {
  const glob = word.search(/[*{]/);
  return (glob === -1 ? word : word.slice(0, glob))
    .replace(/^\.\//, '')
    .replace(/[.,:;]+$/, '')
    .replace(/\/+$/, '');
}

/**
 * Whether a word from prose is a file (`src/main.js`, `package.json`, `.eslintrc`) or a
 * directory path (`src/language-js/`), else null. Product names such as `Node.js`/`Vue.js`,
 * versions (`1.2.3`, `v3.0.0`), e-mail addresses and URLs are never paths: callers strip URLs, and
 * the pattern that yields `word` excludes `@`.
 */
export function classifyPath(word: string): PathKind | null {
  const path = cleanPath(word);
  if (path === '' || path.includes('@') || path.includes('//') || /^v?\d+(\.\d+)+/.test(path)) return null;
  const segments = path.split('/');
  const name = segments[segments.length - 1] ?? '';
  if (KNOWN_FILE_NAMES.has(name.toLowerCase()) || TOOL_DOTFILE.test(name.toLowerCase())) return 'file';
  // `.d.ts`, `.tsx`: an extension being talked about, not a file.
  if (name.startsWith('.') && name.slice(1).split('.').every((part) => part.length <= 2 || FILE_EXTENSIONS.has(part))) return null;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if (FILE_EXTENSIONS.has(extension)) {
    // `Node.js`, `Vue.js`, `Next.js`: a capitalised single word with `.js` is a product name.
    if (segments.length === 1 && extension === 'js' && /^[A-Z][A-Za-z0-9]*\.js$/.test(name)) return null;
    return 'file';
  }
  const directory = segments.length > 1 || /\/$/.test(word.replace(/[*{].*$/, ''));
  if (directory && dot === -1 && KNOWN_ROOTS.has(segments[0] ?? '') && !segments.every(isGenericDir)) return 'path';
  return null;
}
