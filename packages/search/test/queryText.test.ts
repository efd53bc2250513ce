import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lexemes } from '@engram/text';
import { INTENT_TERM_WEIGHT, intentOf, termWeightsOf, timeWindowsOf, topicOf } from '../src/queryText.js';

const QUERIES = new URL('../../../../shared/data/github-prettier/queries.json', import.meta.url).pathname;

describe('the topic of a question', () => {
  it.each([
    ['what do we know about the cache', 'the cache'],
    ['What do we know about markdown list indentation?', 'markdown list indentation'],
    ['who works on the CLI', 'the CLI'],
    ['who is the expert on yaml', 'yaml'],
    ['why did we drop node 14 support', 'drop node 14 support'],
    ['how do we handle cache invalidation', 'handle cache invalidation'],
    ['How to format JSX', 'format JSX'],
    ['tell me about the release script', 'the release script'],
    ['Is there anything about symlinks?', 'symlinks'],
  ])('%s -> %s', (question, topic) => {
    expect(topicOf(question)).toBe(topic);
  });

  it('leaves a plain query, and a frame with nothing after it, as asked', () => {
    expect(topicOf('Fix cache not invalidated')).toBe('Fix cache not invalidated');
    expect(topicOf('what do we know about')).toBe('what do we know about');
    expect(topicOf('who')).toBe('who');
    // "Who" inside a query is not a frame.
    expect(topicOf('Print who-called comments')).toBe('Print who-called comments');
  });

  it.skipIf(!existsSync(QUERIES))('changes none of the evaluation queries (release-note lines)', () => {
    const queries = JSON.parse(readFileSync(QUERIES, 'utf8')) as { query: string }[];
    expect(queries.filter((q) => topicOf(q.query) !== q.query.trim())).toEqual([]);
  });
});

describe('what a question asks for', () => {
  it.each([
    ['who knows the member chain logic', 'people'],
    ['who should I ask about yaml formatting', 'people'],
    ['how do we cut a new release', 'howTo'],
    ['how to make prettier skip one block of code', 'howTo'],
    ['what changed in markdown formatting since 3.7', 'change'],
    ['css changes this year', 'change'],
    ['handlebars changes during 2025', 'change'],
    ['a line in my yaml file vanishes after formatting', 'bug'],
    ['less stylesheet ends up with two semicolons', 'bug'],
    ['key: {} in yaml is split so the braces go to the next line', 'bug'],
    ['&anchor !tag get reordered in yaml', 'bug'],
    ['a long path in await import() gets wrapped onto its own line', 'bug'],
    ['quote-props setting is ignored for method names in interfaces', 'bug'],
    ['no-semi mode still puts a semicolon before a class field', 'bug'],
  ] as const)('%s -> %s', (question, kind) => {
    const intent = intentOf(question);
    expect(Object.entries(intent).filter(([, on]) => on).map(([k]) => k)).toEqual([kind]);
  });

  it('names none for a keyword query', () => {
    expect(Object.values(intentOf('decorators')).some(Boolean)).toBe(false);
  });
});

describe('the lexical weight of a question\'s words', () => {
  const weights = (question: string) => Object.fromEntries(termWeightsOf(lexemes(question)));

  it('weighs the words that only say something is wrong below the words that say what', () => {
    expect(INTENT_TERM_WEIGHT).toBeLessThan(1);
    expect(weights('decorators bug')).toEqual({ bug: INTENT_TERM_WEIGHT });
    expect(Object.keys(weights('prettier crashes with a wrong error on empty files')).sort()).toEqual(['crash', 'error', 'wrong']);
    // "line break" is what the question is about: not an intent word.
    expect(weights('prettier adds a line break inside my bullet items')).toEqual({});
  });

  it('keeps them whole when they are all the question says', () => {
    expect(weights('crash')).toEqual({});
    expect(weights('bug error')).toEqual({});
  });
});

describe('the time window of a question', () => {
  it.each([
    ['what changed in markdown since 3.7', { from: { version: '3.7' } }],
    ['cli changes since v3', { from: { version: '3' } }],
    ['yaml changes between 3.5 and 3.7', { from: { version: '3.5' }, to: { version: '3.7' } }],
    ['jsx changes in 2024', { from: { year: 2024 }, to: { year: 2025 } }],
    ['ci workflow changes this year', { from: { relativeYear: 0 } }],
    ['release script changes in the last year', { from: { back: 1, unit: 'year' } }],
    ['playground changes in the past six months', { from: { back: 6, unit: 'month' } }],
    ['what changed in css last month', { from: { back: 1, unit: 'month' } }],
    ['what did we ship last year', { from: { relativeYear: -1 }, to: { relativeYear: 0 } }],
    ['what changed in css formatting recently', { soft: true }],
  ])('%s', (question, window) => {
    const [first] = timeWindowsOf(question);
    expect(first).toMatchObject(window);
  });

  it('drops the window from the topic, and leaves a version that is not a window alone', () => {
    expect(topicOf('what changed in markdown formatting since 3.7')).toBe('markdown formatting');
    expect(topicOf('vue formatting changes since 3.4')).toBe('vue formatting changes');
    expect(timeWindowsOf('Support TypeScript 5.0')).toEqual([]);
    expect(timeWindowsOf('Break after = of assignment')).toEqual([]);
  });
});
