import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { topicOf } from '../src/queryText.js';

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
