import { isGenericDir } from '../entities/paths.js';

/**
 * Expertise domains that read as topics. A changed path names the area it belongs to by its first
 * directory below the places code is kept (`src/`, `packages/`, `lib/`, `tests/format/`,
 * `changelog_unreleased/` ...): `src/language-markdown/print/x.js` -> markdown, `packages/indexer/src/y.ts`
 * -> indexer. A language area with a topical sub-directory also names the finer area
 * (`tests/format/typescript/decorators/` -> TypeScript decorators). Language and extension names are
 * collapsed onto one canonical language. Title keywords lose stop-like words ("potential", "preserve")
 * and never consist of qualifiers alone ("extra", "missing").
 * Nothing here knows a particular repository.
 */

/** Directories that hold areas rather than name one, beyond `isGenericDir` (src, lib, tests, packages ...). */
const CONTAINER_DIRS: ReadonlySet<string> = new Set([
  'format', 'formats', 'integration', 'unit', 'e2e', 'cases', 'scripts', 'script', 'tools', 'tooling',
  'modules', 'crates', 'components', 'features', 'unreleased', 'changes', 'changelogs', '.github', 'github',
  'misc', 'common', 'shared', 'utils', 'util', 'utilities', 'helpers', 'core', 'assets', 'static', 'public',
]);

/** Sub-directories that say how code is built (printing, parsing), not which part of the area it is. */
const MECHANICS_DIRS: ReadonlySet<string> = new Set([
  'print', 'printer', 'printers', 'parse', 'parser', 'parsers', 'embed', 'traverse', 'types', 'type',
  'clean', 'ast', 'nodes', 'index', 'config', 'options', 'syntax', 'comments-test', 'jsfmt', 'format',
  'others', 'other', 'basic', 'basics', 'simple', 'edge-cases', 'regression', 'regressions', 'issues',
]);

/** Canonical language for a directory, extension or word naming one. */
const LANGUAGE_ALIASES: ReadonlyMap<string, string> = new Map(Object.entries({
  js: 'javascript', javascript: 'javascript', mjs: 'javascript', cjs: 'javascript', ecmascript: 'javascript',
  ts: 'typescript', typescript: 'typescript', tsx: 'typescript', jsx: 'jsx', flow: 'flow', 'flow-repo': 'flow',
  css: 'css', scss: 'scss', sass: 'scss', less: 'less', postcss: 'css',
  md: 'markdown', markdown: 'markdown', mdx: 'mdx', yml: 'yaml', yaml: 'yaml', json: 'json', json5: 'json', jsonc: 'json',
  graphql: 'graphql', gql: 'graphql', html: 'html', htm: 'html', vue: 'vue', angular: 'angular', svelte: 'svelte',
  handlebars: 'handlebars', hbs: 'handlebars', glimmer: 'handlebars', lwc: 'lwc', xml: 'xml', svg: 'svg',
  py: 'python', python: 'python', rb: 'ruby', ruby: 'ruby', go: 'go', golang: 'go', rs: 'rust', rust: 'rust',
  java: 'java', kt: 'kotlin', kotlin: 'kotlin', swift: 'swift', php: 'php', sql: 'sql', sh: 'shell', bash: 'shell',
  c: 'c', cpp: 'c++', cs: 'c#', toml: 'toml', dockerfile: 'docker', docker: 'docker', terraform: 'terraform',
}));

/** How a canonical language is written for a reader. */
const LANGUAGE_DISPLAY: ReadonlyMap<string, string> = new Map(Object.entries({
  javascript: 'JavaScript', typescript: 'TypeScript', jsx: 'JSX', flow: 'Flow', css: 'CSS', scss: 'SCSS', less: 'Less',
  markdown: 'Markdown', mdx: 'MDX', yaml: 'YAML', json: 'JSON', graphql: 'GraphQL', html: 'HTML', vue: 'Vue',
  angular: 'Angular', svelte: 'Svelte', handlebars: 'Handlebars', lwc: 'LWC', xml: 'XML', svg: 'SVG', python: 'Python',
  ruby: 'Ruby', go: 'Go', rust: 'Rust', java: 'Java', kotlin: 'Kotlin', swift: 'Swift', php: 'PHP', sql: 'SQL',
  shell: 'shell', toml: 'TOML', docker: 'Docker', terraform: 'Terraform',
}));

/** Other directory names that are better known by another name. */
const AREA_ALIASES: ReadonlyMap<string, string> = new Map(Object.entries({
  workflows: 'ci', circleci: 'ci', doc: 'docs', documentation: 'docs', bench: 'benchmarks', benchmark: 'benchmarks',
}));

/** Words that say what a change did, not what it is about: trimmed from the ends of a keyword phrase. */
const STOP_LIKE: ReadonlySet<string> = new Set([
  'potential', 'potentially', 'preserve', 'preserves', 'preserved', 'preserving', 'keep', 'keeps', 'kept', 'avoid',
  'avoids', 'avoided', 'prevent', 'prevents', 'requirement', 'requirements', 'issue', 'issues', 'bug', 'bugs',
  'problem', 'problems', 'error', 'errors', 'case', 'cases', 'way', 'ways', 'thing', 'things', 'part', 'parts',
  'simplify', 'simplified', 'instead', 'always', 'never', 'still', 'already', 'possible', 'improve', 'improvement',
  'improvements', 'enable', 'enables', 'disable', 'check', 'checks', 'logic', 'code', 'print', 'printing', 'format',
  'formatting', 'formatted', 'output', 'input', 'behavior', 'behaviour', 'stop', 'stops', 'skip', 'skips', 'ignore',
  'add', 'added', 'remove', 'removed', 'fix', 'fixed', 'fixes', 'update', 'updated', 'support', 'supported', 'use',
  'used', 'using', 'allow', 'allowed', 'make', 'don', 'doesn', 'isn', 'won', 'can', 'cannot', 'via', 'like', 'also',
  'again', 'even', 'just', 'refactor', 'refactoring', 'cleanup', 'minor', 'tweak', 'tweaks', 'typo', 'typos', 'test',
  'tests', 'testing', 'version', 'versions', 'readme', 'changelog', 'todo', 'wip', 'misc', 'stuff',
]);

/** Qualifiers that can stand in a topic (`empty lines`) but never make one on their own. */
const NOT_ALONE: ReadonlySet<string> = new Set([
  'old', 'older', 'new', 'extra', 'missing', 'unnecessary', 'redundant', 'inconsistent', 'incorrect', 'wrong', 'broken',
  'empty', 'unused', 'useless', 'small', 'better', 'proper', 'correct', 'first', 'last', 'multiple', 'single', 'many',
  'few', 'simple', 'unexpected', 'invalid', 'valid', 'enabled', 'disabled', 'ignored', 'value', 'values', 'only', 'other',
  'another', 'same', 'different', 'more', 'most', 'some', 'all', 'any', 'each', 'every', 'long', 'short', 'unstable',
  'stable', 'nested',
]);

export const canonicalLanguage = (name: string): string | undefined => LANGUAGE_ALIASES.get(name.toLowerCase());

const isContainer = (dir: string): boolean => isGenericDir(dir) || CONTAINER_DIRS.has(dir) || /^changelog/.test(dir);

/** Test roots, below which these directories are the test harness, not an area of the product. */
const TEST_ROOTS: ReadonlySet<string> = new Set(['test', 'tests', '__tests__', 'spec', 'specs', 'e2e']);
const TEST_HARNESS: ReadonlySet<string> = new Set(['config', 'setup', 'support', 'harness', 'mocks', '__mocks__', 'fakes', 'fixtures', 'dts']);

/** `language-markdown` -> markdown, `@scope/pkg` -> pkg, `.husky` -> husky, `issue_template` -> issue template. */
function areaName(dir: string): string {
  const bare = dir
    .toLowerCase()
    .replace(/^\./, '')
    .replace(/^(?:language|lang|plugin)-/, '')
    .replace(/_/g, ' ');
  return canonicalLanguage(bare) ?? AREA_ALIASES.get(bare) ?? bare;
}

export interface PathArea {
  /** The area the path names: `markdown`, `cli`, `indexer`. */
  area: string;
  /** The finer area of a language area: `typescript decorators`. */
  subArea?: string;
}

/**
 * The area a directory path (or a file's directory) names, or null when it names none (a file at the
 * root, only containers). Paths are repository-relative, `/`-separated; a trailing file name is ignored
 * when `isFile` is set.
 */
export function areaOfPath(path: string, isFile = false): PathArea | null {
  const segments = path.replace(/^\.\//, '').split('/').filter(Boolean);
  const dirs = isFile ? segments.slice(0, -1) : segments;
  const underTests = TEST_ROOTS.has(dirs[0]?.toLowerCase() ?? '');
  const index = dirs.findIndex((dir) => !isContainer(dir.toLowerCase()));
  if (index < 0 || (underTests && TEST_HARNESS.has(dirs[index]!.toLowerCase()))) return null;
  const area = areaName(dirs[index]!);
  if (area === '' || /^\d+$/.test(area)) return null;
  const next = dirs[index + 1]?.toLowerCase();
  const language = LANGUAGE_DISPLAY.has(area);
  if (!language || !next || isContainer(next) || MECHANICS_DIRS.has(next) || next.startsWith('_') || /^\d/.test(next)) return { area };
  // `tests/format/less/less-test-suite` -> `less test suite`, not `less less test suite`.
  const sub = next.split(/[-_]+/).filter((w) => w !== '' && w !== area && canonicalLanguage(w) !== area);
  return sub.length === 0 ? { area } : { area, subArea: `${area} ${sub.join(' ')}` };
}

/** The words of a keyword phrase without stop-like words at its ends; null when nothing topical is left. */
export function topicalKeyword(phrase: string): string | null {
  const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
  while (words.length > 0 && (STOP_LIKE.has(words[0]!) || words[0]!.length < 3)) words.shift();
  while (words.length > 0 && (STOP_LIKE.has(words[words.length - 1]!) || words[words.length - 1]!.length < 3)) words.pop();
  if (words.every((w) => /^\d/.test(w) || NOT_ALONE.has(w))) return null;
  return words.join(' ');
}

/** A label's topic: `lang:css` -> css, `area/cli` -> cli, `type: bug` -> null. */
export function topicalLabel(label: string): string | null {
  const value = label.toLowerCase().replace(/^[\w-]+\s*[:/]\s*/, '').trim();
  if (value === '') return null;
  const keyword = topicalKeyword(value.replace(/[-_]+/g, ' '));
  return keyword === null ? null : (canonicalLanguage(keyword) ?? keyword);
}

/** How a domain key is shown: languages in their usual spelling (`TypeScript decorators`), the rest as is. */
export function displayDomain(key: string): string {
  const [head, ...rest] = key.split(' ');
  const shown = LANGUAGE_DISPLAY.get(head ?? '');
  return shown ? [shown, ...rest].join(' ') : key;
}
