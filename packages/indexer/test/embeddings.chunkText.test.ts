import { describe, expect, it } from 'vitest';
import { embeddingChunks } from '../src/embedding.js';
import { chunkText } from '../src/embeddings/chunkText.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean);

const buildLog = [
  '> prettier@3.6.0 test',
  '> jest',
  '',
  ...Array.from({ length: 60 }, (_, i) => `PASS tests/format/js/case-${i}/format.test.js (${i * 7} ms)`),
  '',
  'FAIL tests/format/markdown/lists/format.test.js',
  '  ● lists › nested sub-lists keep blank lines',
  '',
  'Tests: 1 failed, 60 passed, 61 total',
].join('\n');

describe('chunkText', () => {
  it('returns short text as one chunk and blank text as none', () => {
    expect(chunkText('  Fix blank lines in lists  ')).toEqual(['Fix blank lines in lists']);
    expect(chunkText(' \n\n ')).toEqual([]);
  });

  it('keeps every chunk within maxChars and loses no words', () => {
    const chunks = chunkText(buildLog, { maxChars: 400 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(400);
    expect(words(chunks.join('\n'))).toEqual(words(buildLog));
  });

  it('cuts on line boundaries, never inside a log line', () => {
    const lines = new Set(buildLog.split('\n').filter(Boolean));
    for (const chunk of chunkText(buildLog, { maxChars: 400 })) {
      for (const line of chunk.split('\n').filter(Boolean)) expect(lines).toContain(line);
    }
  });

  it('prefers paragraph boundaries', () => {
    const paragraph = (topic: string) => `${topic} `.repeat(30).trim();
    const body = [paragraph('alpha'), paragraph('beta'), paragraph('gamma')].join('\n\n');
    expect(chunkText(body, { maxChars: 400 })).toEqual([
      `${paragraph('alpha')}\n\n${paragraph('beta')}`,
      paragraph('gamma'),
    ]);
  });

  it('splits a single overlong line between words, and an overlong word hard', () => {
    const line = 'word '.repeat(100).trim();
    const chunks = chunkText(line, { maxChars: 64 });
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(64);
      expect(chunk).toMatch(/^word( word)*$/);
    }
    expect(chunkText('x'.repeat(100), { maxChars: 40 })).toEqual(['x'.repeat(40), 'x'.repeat(40), 'x'.repeat(20)]);
  });

  it('repeats the end of each chunk at the start of the next when overlap is set', () => {
    const chunks = chunkText(buildLog, { maxChars: 400, overlap: 80 });
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(400);
    for (let i = 1; i < chunks.length; i++) {
      const firstLine = chunks[i]!.split('\n')[0]!;
      expect(firstLine.length).toBeGreaterThan(0);
      expect(chunks[i - 1]!.slice(-80)).toContain(firstLine);
    }
  });
});

describe('embeddingChunks', () => {
  it("embeds an item's prose: title then body, every later chunk under the title, no bare title chunk for an untitled item", () => {
    const title = 'Keep blank lines between nested markdown lists';
    const body = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} explains how the list printer keeps a blank line between sub-lists.`).join('\n\n');
    const chunks = embeddingChunks({ title, body });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks[0]!.startsWith(`${title}\n\n`)).toBe(true);
    for (const chunk of chunks.slice(1)) expect(chunk.startsWith(`${title}\n\n`)).toBe(true);
    expect(embeddingChunks({ title: null, body: 'Bump typescript' })).toEqual(['Bump typescript']);
    expect(embeddingChunks({ title: '', body: '   ' })).toEqual([' ']);
  });
});
