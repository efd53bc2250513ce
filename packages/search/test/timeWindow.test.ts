/**
 * A question's time window narrows what search returns: "since 3.5" from the date the workspace's own
 * items say 3.5 was released, "this year" and "in the last three months" counted back from the newest
 * item. A version the workspace never released narrows nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchRequest } from '@engram/contracts';
import { createSearchService, type SearchService } from '../src/index.js';
import { buildIndex, pullRequest, type Indexed } from './fixture.js';

const pr = (n: number, title: string, at: string) => pullRequest(n, { title, body: `${title}.`, at });

describe('time windows in questions', () => {
  let index: Indexed;
  let service: SearchService;
  beforeAll(async () => {
    index = await buildIndex([
      pr(1, 'Markdown tables keep their alignment', '2024-03-01T00:00:00.000Z'),
      pr(2, 'Release 3.5.0', '2025-02-09T00:00:00.000Z'),
      pr(3, 'Markdown lists keep their numbering', '2025-04-01T00:00:00.000Z'),
      pr(4, 'Markdown links are no longer escaped', '2026-06-01T00:00:00.000Z'),
      pr(5, 'Release 3.6.0', '2026-06-10T00:00:00.000Z'),
      pr(6, 'Markdown headings keep trailing hashes', '2026-07-20T00:00:00.000Z'),
    ]);
    service = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder });
  }, 120_000);
  afterAll(async () => index?.close());

  const titles = async (query: string) => (await service.search(index.workspaceId, SearchRequest.parse({ query, mode: 'fast' }))).results.map((r) => r.title);

  it('"since 3.5" keeps what came after the workspace released 3.5', async () => {
    const got = await titles('what changed in markdown since 3.5');
    expect(got).toContain('Markdown lists keep their numbering');
    expect(got).toContain('Markdown headings keep trailing hashes');
    expect(got).not.toContain('Markdown tables keep their alignment');
  });

  it('"between 3.5 and 3.6" ends at the release of 3.6', async () => {
    const got = await titles('markdown changes between 3.5 and 3.6');
    expect(got).toContain('Markdown lists keep their numbering');
    expect(got).toContain('Markdown links are no longer escaped');
    expect(got).not.toContain('Markdown headings keep trailing hashes');
    expect(got).not.toContain('Markdown tables keep their alignment');
  });

  it('"in the last three months" and "this year" count back from the newest item, not the clock', async () => {
    expect((await titles('markdown changes in the last three months')).filter((t) => t.startsWith('Markdown')).sort()).toEqual([
      'Markdown headings keep trailing hashes',
      'Markdown links are no longer escaped',
    ]);
    expect((await titles('markdown changes this year')).filter((t) => t.startsWith('Markdown')).sort()).toEqual([
      'Markdown headings keep trailing hashes',
      'Markdown links are no longer escaped',
    ]);
  });

  it('a version the workspace never released narrows nothing', async () => {
    expect(await titles('markdown changes since 9.1')).toContain('Markdown tables keep their alignment');
  });
});
