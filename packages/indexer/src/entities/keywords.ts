/**
 * Topical keywords of a title: a few salient lower-cased words and adjacent-word bigrams, without
 * stop words, generic change verbs (fix, update, add, bump, ...), numbers, versions and references.
 */

const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'does', 'for', 'from', 'has', 'have',
  'if', 'in', 'into', 'is', 'it', 'its', 'not', 'no', 'of', 'on', 'or', 'so', 'than', 'that', 'the',
  'their', 'them', 'then', 'there', 'these', 'this', 'those', 'to', 'too', 'via', 'was', 'we', 'were',
  'when', 'where', 'which', 'while', 'with', 'without', 'you', 'your', 'all', 'also', 'more', 'some',
  'only', 'other', 'same', 'should', 'will', 'would', 'about', 'after', 'before', 'between', 'during',
  'but', 'own', 'our', 'up', 'out', 'off', 'over', 'under', 'again', 'just', 'very', 'etc', 'e.g', 'i.e',
]);

/** Verbs and nouns every change title uses; they say nothing about the topic. */
const GENERIC_WORDS: ReadonlySet<string> = new Set([
  'fix', 'fixes', 'fixed', 'fixing', 'update', 'updates', 'updated', 'updating', 'add', 'adds', 'added',
  'adding', 'bump', 'bumps', 'bumped', 'remove', 'removes', 'removed', 'removing', 'improve', 'improves',
  'improved', 'use', 'uses', 'using', 'make', 'makes', 'made', 'change', 'changes', 'changed', 'refactor',
  'refactors', 'chore', 'feat', 'feature', 'docs', 'doc', 'deps', 'dependency', 'dependencies', 'dev',
  'minor', 'major', 'patch', 'version', 'versions', 'revert', 'reverts', 'merge', 'merged', 'branch',
  'pr', 'wip', 'tweak', 'tweaks', 'misc', 'cleanup', 'clean', 'move', 'moved', 'rename', 'renamed',
  'allow', 'allows', 'ensure', 'handle', 'handles', 'correct', 'correctly', 'properly', 'new', 'set',
  'build', 'ci', 'test', 'tests', 'release', 'support', 'supports', 'lock', 'file', 'files', 'main',
  'next', 'v', 'apply', 'applied', 'try', 'prefer', 'replace', 'replaces', 'upgrade', 'upgrades',
  'related', 'remote-tracking', 'remotes', 'upstream', 'origin', 'across', 'group', 'directory',
]);

const MAX_UNIGRAMS = 6;
const MAX_BIGRAMS = 4;
const WORD = /[A-Za-z][A-Za-z0-9]*(?:[.'_-][A-Za-z0-9]+)*/g;

/** Strips references, scopes and version numbers that are not topical. */
const cleanTitle = (title: string): string =>
  title
    .replace(/\s\(#\d+\)/g, ' ')
    .replace(/(?:[\w.-]+\/[\w.-]+)?#\d+/g, ' ')
    .replace(/^\w+(?:\([^)]*\))?!?:\s*/, (prefix) => (/^(?:fix|feat|chore|docs|refactor|build|ci|test|perf|style)\b/i.test(prefix) ? ' ' : prefix))
    .replace(/\bv?\d+(?:\.\d+)+\w*/gi, ' ');

export interface Keyword {
  keyword: string;
  confidence: number;
}

export function titleKeywords(title: string): Keyword[] {
  const words: (string | null)[] = [];
  for (const segment of cleanTitle(title).split(/[,;:()[\]"!?]|\s-\s|\.\s/)) {
    for (const match of segment.matchAll(WORD)) {
      const word = match[0].toLowerCase().replace(/'s$/, '');
      words.push(word.length < 3 || STOP_WORDS.has(word) || GENERIC_WORDS.has(word) ? null : word);
    }
    words.push(null);
  }
  const unigrams: string[] = [];
  const bigrams: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === null || word === undefined) continue;
    if (!unigrams.includes(word) && unigrams.length < MAX_UNIGRAMS) unigrams.push(word);
    const next = words[i + 1];
    if (next !== null && next !== undefined && bigrams.length < MAX_BIGRAMS) bigrams.push(`${word} ${next}`);
  }
  return [
    ...unigrams.map((keyword) => ({ keyword, confidence: 0.5 })),
    ...bigrams.map((keyword) => ({ keyword, confidence: 0.6 })),
  ];
}
