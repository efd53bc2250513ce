import { areasOfFiles, getAreaCounts, ROOT_AREA, type Db } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildAreaModel } from '../src/index.js';
import { commit, openHarness, pullRequest, sha, stageAndIndex, type Harness } from './helpers.js';

let h: Harness;
let db: Db;
beforeAll(async () => {
  h = await openHarness();
  db = h.db;
});
afterAll(async () => {
  await h.db.close();
});

describe('areas of a change', () => {
  it('are every file and every directory above it, directories ending in a slash', () => {
    expect([...areasOfFiles(['src/print/decorators.js', 'src/print/css.js', 'README.md'])].sort()).toEqual([
      'README.md',
      'src/',
      'src/print/',
      'src/print/css.js',
      'src/print/decorators.js',
    ]);
    expect([...areasOfFiles(['', '/'])]).toEqual([]);
  });
});

describe('the area model', () => {
  const merge = sha('dec0');
  const changes = [
    pullRequest(1, { title: 'Fix decorators before export', files: ['src/print/decorators.js'] }),
    pullRequest(2, {
      title: 'Keep decorators on their own line',
      files: ['src/print/decorators.js', 'tests/decorators/a.js'],
      refs: [{ key: `commit:${merge}`, relation: 'merged_as', confidence: 1 }],
    }),
    // The squash commit of #2: one change with its PR, so #2's title is not counted twice.
    commit(merge, { title: 'Keep decorators on their own line (#2)', files: ['src/print/decorators.js', 'tests/decorators/a.js'] }),
    pullRequest(3, { title: 'Fix #123', files: ['src/print/decorators.js'] }),
    pullRequest(4, { title: 'Support CSS nesting', files: ['src/print/css.js'] }),
    commit(sha('c55'), { title: 'Fix CSS comments', files: ['src/print/css.js', 'website/blog/post.md'] }),
  ];

  it('counts, per file and directory, the changes touching it and the title terms of those changes', async () => {
    const ws = await testWorkspace(db);
    for (const e of changes) await stageAndIndex(h, ws, e);
    expect(await rebuildAreaModel(db, ws)).toMatchObject({ changes: 5 });

    const counts = await getAreaCounts(db, ws, ['src/print/decorators.js', 'src/print/', 'src/print/css.js', 'tests/decorators/a.js', 'website/blog/post.md'], ['decor', 'css', 'fix']);
    expect(Object.fromEntries(counts.areas)).toEqual({ [ROOT_AREA]: 5, 'src/print/decorators.js': 3, 'src/print/': 5, 'src/print/css.js': 2 });
    // Areas only one change touched tell nothing about another change: left out.
    expect(counts.areas.has('tests/decorators/a.js')).toBe(false);
    expect(Object.fromEntries(counts.terms.get('src/print/decorators.js')!)).toEqual({ decor: 2, fix: 2 });
    expect(Object.fromEntries(counts.terms.get('src/print/css.js')!)).toEqual({ css: 2, fix: 1 });
    expect(counts.terms.get(ROOT_AREA)!.get('decor')).toBe(2);
  });

  it('rebuilds from what the items say now, replacing the previous model', async () => {
    const ws = await testWorkspace(db);
    for (const e of changes) await stageAndIndex(h, ws, e);
    await rebuildAreaModel(db, ws);
    await stageAndIndex(h, ws, pullRequest(3, { title: 'Fix decorators in classes', files: ['src/print/decorators.js'], updatedAt: '2025-02-01T00:00:00.000Z' }));
    await rebuildAreaModel(db, ws);

    const counts = await getAreaCounts(db, ws, ['src/print/decorators.js'], ['decor']);
    expect(counts.areas.get('src/print/decorators.js')).toBe(3);
    expect(counts.terms.get('src/print/decorators.js')!.get('decor')).toBe(3);
    const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM areas WHERE workspace_id = $1', [ws]);
    expect(rows.rows[0]!.n).toBe(5);
  });

  it('is empty for a workspace with no items, and keeps other workspaces apart', async () => {
    const empty = await testWorkspace(db);
    expect(await rebuildAreaModel(db, empty)).toEqual({ changes: 0, areas: 1, terms: 0 });
    expect((await getAreaCounts(db, empty, ['src/print/'], ['decor'])).terms.size).toBe(0);
  });
});
