import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchRequest } from '@engram/contracts';
import { rebuildAreaModel } from '@engram/indexer';
import { createWorkspace, getAreaCounts } from '@engram/stores';
import { areaTitleLift, createAreaModelCache, type AreaModelReader } from '../src/areaLift.js';
import { createLearnedReranker, createSearchService } from '../src/index.js';
import { buildIndex, indexInto, pullRequest, type Indexed } from './fixture.js';

const change = (n: number, title: string, files: string[]) =>
  pullRequest(n, { title, repo: 'acme/app', at: `2025-01-${String(n).padStart(2, '0')}T10:00:00.000Z`, files });

const EVENTS = [
  change(1, 'Fix decorators before export', ['src/print/decorators.js']),
  change(2, 'Keep decorators on their own line', ['src/print/decorators.js', 'tests/decorators/a.js']),
  change(3, 'Fix #123', ['src/print/decorators.js']),
  change(4, 'Support CSS nesting', ['src/print/css.js']),
  change(5, 'Fix CSS comments', ['src/print/css.js']),
  change(6, 'Decorators cleanup', ['lib/only.js']),
  change(7, 'Bump the parser', ['lib/only.js']),
];

describe('areaTitleLift', () => {
  let index: Indexed;
  let fresh: AreaModelReader;
  const ids = new Map<number, string>();
  const subject = (n: number) => {
    const e = EVENTS[n - 1]!;
    return { id: ids.get(n)!, title: e.title ?? '', files: e.files };
  };
  const lift = async (topic: string, ns: [number, ...number[]]): Promise<[number, ...number[]]> => {
    const out = await areaTitleLift(fresh, index.workspaceId, topic, ns.map(subject));
    const [first, ...rest] = ns.map((n) => out.get(ids.get(n)!) ?? 0);
    return [first!, ...rest];
  };

  beforeAll(async () => {
    index = await buildIndex([]);
    (await indexInto(index, index.workspaceId, EVENTS)).forEach((id, i) => ids.set(i + 1, id));
    await rebuildAreaModel(index.db, index.workspaceId);
    fresh = { counts: (ws, areas, terms) => getAreaCounts(index.db, ws, areas, terms) };
  }, 60_000);
  afterAll(async () => {
    await index?.close();
  });

  it('scores a change whose own title misses the question by the titles of other changes to its files', async () => {
    const [fixDecorators, cssNesting = 0] = await lift('decorators', [3, 4]);
    expect(fixDecorators).toBeGreaterThan(0.5);
    expect(fixDecorators).toBeGreaterThan(2 * cssNesting);
    const [css, decorators = 0] = await lift('CSS comments', [4, 3]);
    expect(css).toBeGreaterThan(decorators);
  });

  it('leaves the change itself out: its own title does not lift it', async () => {
    // #6 is the only change to lib/only.js with "decorators" in its title; its one neighbour has none.
    const [cleanup] = await lift('decorators', [6]);
    const [parserBump] = await lift('decorators', [7]);
    expect(cleanup).toBe(0);
    expect(parserBump).toBeGreaterThan(0);
  });

  it('gives nothing where nothing is known: no model yet, no files, no words', async () => {
    const other = (await createWorkspace(index.db, 'no-model')).id;
    const cache = createAreaModelCache(index.db);
    expect((await areaTitleLift(cache, other, 'decorators', [subject(3)])).size).toBe(0);
    expect((await areaTitleLift(fresh, index.workspaceId, 'decorators', [{ ...subject(3), files: [] }])).size).toBe(0);
    expect((await areaTitleLift(fresh, index.workspaceId, 'the of and', [subject(3)])).size).toBe(0);
  });

  it('reads the same through the per-process cache, and follows a rebuild of the model', async () => {
    const cache = createAreaModelCache(index.db, 1);
    const all = EVENTS.map((_, i) => subject(i + 1));
    for (const topic of ['decorators', 'CSS comments', 'decorators', 'parser decorators']) {
      expect(await areaTitleLift(cache, index.workspaceId, topic, all)).toEqual(await areaTitleLift(fresh, index.workspaceId, topic, all));
    }
    const before = (await areaTitleLift(cache, index.workspaceId, 'nesting', [subject(5)])).get(ids.get(5)!);
    // #4 is retitled: the other change to css.js no longer says "nesting".
    await indexInto(index, index.workspaceId, [{ ...EVENTS[3]!, title: 'Support CSS layers', updatedAt: '2025-03-01T00:00:00.000Z' }]);
    await rebuildAreaModel(index.db, index.workspaceId);
    const after = (await areaTitleLift(cache, index.workspaceId, 'nesting', [subject(5)])).get(ids.get(5)!);
    expect(before).toBeGreaterThan(0);
    expect(after).toBeLessThan(before!);
    expect(await areaTitleLift(cache, index.workspaceId, 'nesting', all)).toEqual(await areaTitleLift(fresh, index.workspaceId, 'nesting', all));
  });

  it('reaches the learned reranker as a candidate signal in balanced', async () => {
    const service = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder, reranker: createLearnedReranker() });
    const request = SearchRequest.parse({ query: 'decorators', mode: 'balanced', limit: 10 });
    const out = await service.search(index.workspaceId, request, { debugCandidates: true });
    const signal = new Map(out.candidates!.map((c) => [c.id, c.signals.areaTitleLift]));
    expect(signal.get(ids.get(2)!)).toBeGreaterThan(0);
    expect(signal.get(ids.get(3)!)).toBeGreaterThan(0);
    expect(out.mode).toBe('balanced');
    expect(out.latency.areas).toBeGreaterThanOrEqual(0);
    // A second stage that does not read it (a hosted cross-encoder) does not pay for it.
    const hosted = createSearchService({ db: index.db, vectors: index.vectors, embedder: index.embedder, reranker: { name: 'hosted', rerank: async (_q, cs) => cs.map(() => 0.5) } });
    expect((await hosted.search(index.workspaceId, request)).latency.areas).toBeUndefined();
  });
});
