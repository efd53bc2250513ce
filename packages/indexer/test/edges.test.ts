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

function permutations<T>(list: readonly T[]): T[][] {
  if (list.length <= 1) return [[...list]];
  return list.flatMap((first, i) => permutations([...list.slice(0, i), ...list.slice(i + 1)]).map((rest) => [first, ...rest]));
}

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

  it('links fixes, a revert commit to the commit it reverts only, and drops an edge when its reference is edited away', async () => {
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
      ].sort(),
    );

    await stageAndIndex(h, ws, { ...pr, body: 'No issue after all', updatedAt: '2025-01-25T00:00:00.000Z' });
    expect((await listItemEdges(db, P)).map((e) => e.type).sort()).toEqual(['commit_pr']);
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

  describe('reverts join changes at the same level, whatever the arrival order', () => {
    const original = pullRequest(42, {
      title: 'Fix quotes in JSX',
      refs: [
        { key: `commit:${sha('a11ce1')}`, relation: 'contains', confidence: 1 },
        { key: `commit:${merge}`, relation: 'merged_as', confidence: 1 },
      ],
    });
    const branchCommit = commit(sha('a11ce1'), { title: 'Quote JSX attributes', occurredAt: '2025-01-09T10:00:00.000Z' });
    const later = { occurredAt: '2025-01-20T00:00:00.000Z', updatedAt: '2025-01-20T00:00:00.000Z' };
    const reverts = async (events: SourceEventInput[]) => {
      const ws = await testWorkspace(db);
      for (const e of events) await stageAndIndex(h, ws, e);
      const ids = new Map(events.map((e) => [idOf(ws, e), e.externalId]));
      return (await listWorkspaceEdges(db, ws, ['reverts'])).map((e) => `${ids.get(e.sourceId)} -> ${ids.get(e.targetId)} [${e.linkingKey}]`).sort();
    };

    it('a revert commit naming the pull request reverts its squash commit, not the pull request', async () => {
      // Merged by the squash button: the subject names the reverted PR and the revert PR, no sha.
      const revert = commit(sha('beef02'), { title: 'Revert "Fix quotes in JSX (#42)" (#43)', ...later });
      for (const order of permutations([original, squash, revert])) {
        expect(await reverts(order)).toEqual([`${revert.externalId} -> ${squash.externalId} [gh:acme/app#42]`]);
      }
    });

    it('a revert pull request naming a commit sha reverts the pull request holding that commit', async () => {
      const revertPr = pullRequest(44, { title: 'Undo JSX quoting', body: `This reverts commit ${sha('a11ce1')}.`, ...later });
      const bySquash = pullRequest(45, { title: 'Undo JSX quoting again', body: `This reverts commit ${merge}.`, ...later });
      for (const order of permutations([original, branchCommit, revertPr])) {
        expect(await reverts(order)).toEqual([`${revertPr.externalId} -> ${original.externalId} [commit:${sha('a11ce1')}]`]);
      }
      for (const order of permutations([original, squash, bySquash])) {
        expect(await reverts(order)).toEqual([`${bySquash.externalId} -> ${original.externalId} [commit:${merge}]`]);
      }
    });

    it('a revert pull request titled `Revert "X" (#n)` reverts pull request n', async () => {
      const revertPr = pullRequest(46, { title: 'Revert "Fix quotes in JSX" (#42)', ...later });
      for (const order of permutations([original, squash, revertPr])) {
        expect(await reverts(order)).toEqual([`${revertPr.externalId} -> ${original.externalId} [gh:acme/app#42]`]);
      }
    });

    it('makes no edge when the reverted change exists only at the other level', async () => {
      // The PR was merged with a merge commit: no commit stands for #42, so the revert commit links nothing.
      const unsquashed = pullRequest(42, { title: 'Fix quotes in JSX', refs: [{ key: `commit:${sha('a11ce1')}`, relation: 'contains', confidence: 1 }] });
      const revert = commit(sha('beef03'), { title: 'Revert "Fix quotes in JSX (#42)"', ...later });
      const revertPr = pullRequest(47, { title: 'Revert a commit', body: `This reverts commit ${sha('0dd1')}.`, ...later });
      const lone = commit(sha('0dd1'), { title: 'Tweak', occurredAt: '2025-01-09T00:00:00.000Z' });
      for (const order of permutations([unsquashed, revert, revertPr, lone])) expect(await reverts(order)).toEqual([]);
    });

    it('a revert by title only links to a holder of its own type', async () => {
      const titledPr = pullRequest(50, { title: 'Fix tests', occurredAt: '2025-01-05T00:00:00.000Z' });
      const titledCommit = commit(sha('f1f1'), { title: 'Fix tests', occurredAt: '2025-01-06T00:00:00.000Z' });
      const revertCommit = commit(sha('f2f2'), { title: 'Revert "Fix tests"', ...later });
      const revertPr = pullRequest(51, { title: 'Revert "Fix tests"', ...later });
      for (const order of permutations([titledPr, titledCommit, revertCommit, revertPr])) {
        expect(await reverts(order)).toEqual(
          [`${revertCommit.externalId} -> ${titledCommit.externalId} [title:fix tests]`, `${revertPr.externalId} -> ${titledPr.externalId} [title:fix tests]`].sort(),
        );
      }
    });

    it('an issue that says it reverts a change still links to it', async () => {
      const target = commit(sha('ab12'), { title: 'Tweak', occurredAt: '2025-01-09T00:00:00.000Z' });
      const report: SourceEventInput = {
        source: 'github', type: 'issue', externalId: 'github:acme/app:issue:90', url: 'https://github.com/acme/app/issues/90',
        title: 'Tweak broke the build', body: `We should revert it. This reverts commit ${sha('ab12')}.`, ...later,
        keys: ['issue:acme/app#90'], container: 'acme/app',
      };
      for (const order of permutations([target, report])) expect(await reverts(order)).toEqual([`${report.externalId} -> ${target.externalId} [commit:${sha('ab12')}]`]);
    });

    it('counts only holders of its own type against the title limit', async () => {
      // Five changes titled "Bump deps" would be too many to tell apart, but only one of them is a commit.
      const prs = [60, 61, 62, 63].map((n, i) => pullRequest(n, { title: 'Bump deps', occurredAt: `2025-01-0${i + 1}T00:00:00.000Z` }));
      const bump = commit(sha('b0b0'), { title: 'Bump deps', occurredAt: '2025-01-07T00:00:00.000Z' });
      const revert = commit(sha('b1b1'), { title: 'Revert "Bump deps"', ...later });
      for (const order of [[...prs, bump, revert], [revert, bump, ...prs], [prs[0]!, revert, prs[1]!, bump, prs[2]!, prs[3]!]]) {
        expect(await reverts(order)).toEqual([`${revert.externalId} -> ${bump.externalId} [title:bump deps]`]);
      }
    });
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
