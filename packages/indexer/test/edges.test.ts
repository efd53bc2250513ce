import { listItemEdges, listWorkspaceEdges, type Db } from '@engram/stores';
import { testWorkspace } from '@engram/stores/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceEventInput } from '@engram/contracts';
import { itemIdOf } from '../src/index.js';
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

const idOf = (ws: string, e: SourceEventInput) => itemIdOf(ws, { type: e.type, source: e.source, externalId: e.externalId });
const edgeSet = async (ws: string) => (await listWorkspaceEdges(db, ws)).map((e) => `${e.sourceId} -${e.type}-> ${e.targetId} [${e.linkingKey}]`).sort();

describe('the related graph', () => {
  const merge = sha('c0ffee1');
  const pr = pullRequest(42, {
    title: 'Fix quotes in JSX',
    body: 'Fixes #40',
    refs: [{ key: `commit:${merge}`, relation: 'merged_as', confidence: 1 }],
    occurredAt: '2025-01-10T10:00:00.000Z',
  });
  const squash = commit(merge, { title: 'Fix quotes in JSX (#42)', body: '* Fixes #40' });

  it('links a pull request and its commit whichever arrives first, without duplicates', async () => {
    const prFirst = await testWorkspace(db);
    await stageAndIndex(h, prFirst, pr);
    await stageAndIndex(h, prFirst, squash);
    const commitFirst = await testWorkspace(db);
    await stageAndIndex(h, commitFirst, squash);
    await stageAndIndex(h, commitFirst, pr);

    for (const ws of [prFirst, commitFirst]) {
      const edges = await listWorkspaceEdges(db, ws, ['commit_pr']);
      expect(edges).toHaveLength(1);
      expect(edges[0]).toMatchObject({ sourceId: idOf(ws, pr), targetId: idOf(ws, squash), type: 'commit_pr' });
    }
    // Redelivering a changed version of either side keeps exactly one edge.
    await stageAndIndex(h, prFirst, { ...squash, body: '* Fixes #40\n\nCo-authored-by: someone', updatedAt: '2025-01-12T00:00:00.000Z' });
    expect(await listWorkspaceEdges(db, prFirst, ['commit_pr'])).toHaveLength(1);
  });

  it('links fixes, reverts by title and by sha, and drops an edge when its reference is edited away', async () => {
    const ws = await testWorkspace(db);
    const issue: SourceEventInput = {
      source: 'github', type: 'issue', externalId: 'github:acme/app:issue:40', url: 'https://github.com/acme/app/issues/40',
      title: 'Quotes broken', body: '', occurredAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-01T00:00:00.000Z',
      keys: ['issue:acme/app#40'], container: 'acme/app',
    };
    await stageAndIndex(h, ws, pr);
    await stageAndIndex(h, ws, issue);
    const revertSha = sha('beef01');
    const revert = commit(revertSha, {
      title: 'Revert "Fix quotes in JSX (#42)"',
      body: `This reverts commit ${merge}.`,
      occurredAt: '2025-01-20T00:00:00.000Z',
      updatedAt: '2025-01-20T00:00:00.000Z',
    });
    await stageAndIndex(h, ws, revert);
    await stageAndIndex(h, ws, squash);

    const edges = await edgeSet(ws);
    const [P, I, R, C] = [idOf(ws, pr), idOf(ws, issue), idOf(ws, revert), idOf(ws, squash)];
    expect(edges).toEqual(
      [
        `${P} -fixes-> ${I} [gh:acme/app#40]`,
        `${C} -fixes-> ${I} [gh:acme/app#40]`,
        `${P} -commit_pr-> ${C} [commit:${merge}]`,
        `${R} -reverts-> ${C} [commit:${merge}]`,
        `${R} -reverts-> ${P} [gh:acme/app#42]`,
      ].sort(),
    );

    await stageAndIndex(h, ws, { ...pr, body: 'No issue after all', updatedAt: '2025-01-25T00:00:00.000Z' });
    expect((await listItemEdges(db, P)).map((e) => e.type).sort()).toEqual(['commit_pr', 'reverts']);
  });

  it('links a revert that names its commit to that commit only, not to older items with the same title', async () => {
    const ws = await testWorkspace(db);
    const older = commit(sha('01d001'), { title: 'Fix tests', occurredAt: '2024-03-01T00:00:00.000Z', updatedAt: '2024-03-01T00:00:00.000Z' });
    const target = commit(sha('7a26e7'), { title: 'Fix tests', occurredAt: '2025-02-01T00:00:00.000Z', updatedAt: '2025-02-01T00:00:00.000Z' });
    const revert = commit(sha('5e7e57'), {
      title: 'Revert "Fix tests"',
      body: `This reverts commit ${sha('7a26e7')}.`,
      occurredAt: '2025-02-02T00:00:00.000Z',
      updatedAt: '2025-02-02T00:00:00.000Z',
    });
    for (const e of [older, target, revert]) await stageAndIndex(h, ws, e);
    expect(await edgeSet(ws)).toEqual([`${idOf(ws, revert)} -reverts-> ${idOf(ws, target)} [commit:${sha('7a26e7')}]`]);
  });

  it('joins a deployment and a pull request that point at the same commit', async () => {
    const ws = await testWorkspace(db);
    const built = sha('d3ad');
    const deployment: SourceEventInput = {
      source: 'vercel', type: 'deployment', externalId: 'vercel:dpl_1', url: 'https://vercel.com/acme/app/dpl_1',
      title: 'Production deployment', body: 'Ready', occurredAt: '2025-01-11T00:00:00.000Z', updatedAt: '2025-01-11T00:00:00.000Z',
      keys: ['deployment:dpl_1'], refs: [{ key: `commit:${built}`, relation: 'built_from', confidence: 1 }], container: 'app',
    };
    const contains = pullRequest(50, { refs: [{ key: `commit:${built}`, relation: 'contains', confidence: 1 }] });
    await stageAndIndex(h, ws, deployment);
    await stageAndIndex(h, ws, contains);
    const [D, P] = [idOf(ws, deployment), idOf(ws, contains)];
    const [source, target] = D < P ? [D, P] : [P, D];
    expect(await edgeSet(ws)).toEqual([`${source} -same_commit-> ${target} [commit:${built}]`]);
    await stageAndIndex(h, ws, commit(built, { title: 'Ship it' }));
    const types = (await listWorkspaceEdges(db, ws)).map((e) => e.type).sort();
    expect(types).toEqual(['built_from', 'commit_pr', 'same_commit']);
  });
});
