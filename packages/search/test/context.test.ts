import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchRequest } from '@engram/contracts';
import { recluster } from '@engram/indexer';
import { createSearchService } from '../src/index.js';
import { buildIndex, corpusSubset, hasData, normalizeAll, type Indexed } from './fixture.js';

const req = (query: string) => SearchRequest.parse({ query, mode: 'fast', limit: 10 });

describe.skipIf(!hasData)('search context and entities at rest (needs ../shared/data/github-prettier)', () => {
  let index: Indexed;
  const subset = hasData ? corpusSubset(80) : [];

  beforeAll(async () => {
    index = await buildIndex(normalizeAll(subset));
    await recluster(index.db, index.vectors, index.workspaceId);
  }, 300_000);
  afterAll(async () => {
    await index?.close();
  });

  it('answers from snapshots exactly as the per-query reads do, and follows a write', async () => {
    // A new service's first search reads per query; later ones (no write between) read from snapshots.
    const queries = ['fix', 'typescript decorators', 'update dependency', 'markdown', 'css comments', 'fisker', 'vue', 'yaml'];
    const fresh = () => createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder });
    const first = [];
    for (const q of queries) first.push(await fresh().search(index.workspaceId, req(q)));
    const service = fresh();
    for (let round = 0; round < 2; round++) {
      for (const [i, q] of queries.entries()) {
        const again = await service.search(index.workspaceId, req(q));
        expect(again.results.map((r) => [r.id, r.entities])).toEqual(first[i]!.results.map((r) => [r.id, r.entities]));
        expect(again.context).toEqual(first[i]!.context);
      }
    }
    expect(first.some((o) => (o.context?.clusters.length ?? 0) > 0)).toBe(true);
    expect(first.some((o) => (o.context?.relevantActors.length ?? 0) > 0)).toBe(true);
    expect(first.some((o) => o.results.some((r) => (r.entities ?? []).length > 1))).toBe(true);

    // A write: with no staleness allowed, a renamed person shows under the new name at once; by default
    // (near-real-time) the next searches may still show the old name, but within the bound they follow.
    const exact = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder, contextStalenessMs: 0 });
    for (const q of queries) await exact.search(index.workspaceId, req(q));
    const shown = first.flatMap((o) => o.context?.relevantActors ?? [])[0]!;
    await index.db.query('UPDATE actors SET display_name = $1 WHERE workspace_id = $2 AND display_name = $3', ['renamed-person', index.workspaceId, shown.displayName]);
    const namesOn = async (s: ReturnType<typeof fresh>) => {
      const out = [];
      for (const q of queries) out.push(await s.search(index.workspaceId, req(q)));
      return out.flatMap((o) => (o.context?.relevantActors ?? []).map((a) => a.displayName));
    };
    const now = await namesOn(exact);
    expect(now).toContain('renamed-person');
    expect(now).not.toContain(shown.displayName);
    await namesOn(service);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await namesOn(service);
    const later = await namesOn(service);
    expect(later).toContain('renamed-person');
    expect(later).not.toContain(shown.displayName);
  }, 120_000);
});
