/**
 * The related graph shows what an item says it fixes even when that issue is not indexed: a stub node
 * `ref:gh:owner/repo#N` and a `fixes` edge, within depth, under limit and the types filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelatedRequest, SourceEvent, type SourceEventInput } from '@engram/contracts';
import { createWorkspace, listItemRefs } from '@engram/stores';
import { getContents, getRelatedGraph, type RelatedGraph } from '../src/index.js';
import { buildIndex, indexInto, type Indexed } from './fixture.js';

const REPO = 'acme/widgets';
const SHA = 'c3d4e5f60718293a4b5c6d7e8f901234567890ab';
const day = (n: number): string => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString();

const gh = (type: 'pull_request' | 'issue', n: number, title: string, body: string, at: number, extra: Partial<SourceEventInput> = {}): SourceEventInput => ({
  source: 'github',
  type,
  externalId: `github:${REPO}:${type}:${n}`,
  url: `https://github.com/${REPO}/${type === 'pull_request' ? 'pull' : 'issues'}/${n}`,
  title,
  body,
  occurredAt: day(at),
  updatedAt: day(at),
  keys: [`${type === 'pull_request' ? 'pr' : 'issue'}:${REPO}#${n}`],
  container: REPO,
  ...extra,
});

const commit = (sha: string, title: string, body: string, at: number): SourceEventInput => ({
  source: 'github',
  type: 'commit',
  externalId: `github:${REPO}:commit:${sha}`,
  url: `https://github.com/${REPO}/commit/${sha}`,
  title,
  body,
  occurredAt: day(at),
  updatedAt: day(at),
  keys: [`commit:${sha}`],
  container: REPO,
});

const STUB_123 = 'ref:gh:acme/widgets#123';

describe('related graph: stubs for fixed issues that are not indexed', () => {
  let index: Indexed;

  beforeAll(async () => {
    index = await buildIndex([]);
  }, 120_000);
  afterAll(async () => index?.close());

  /** A fresh workspace, so each test sees only its own items; returns a function indexing more events into it. */
  async function workspace(): Promise<{ id: string; add(events: SourceEventInput[]): Promise<string[]> }> {
    const ws = await createWorkspace(index.db, `related-${Math.random().toString(36).slice(2, 8)}`);
    return { id: ws.id, add: (events) => indexInto(index, ws.id, events.map((e) => SourceEvent.parse(e))) };
  }

  const related = async (workspaceId: string, body: Record<string, unknown>): Promise<RelatedGraph> => {
    const graph = await getRelatedGraph(index.db, workspaceId, RelatedRequest.parse(body));
    if (!graph) throw new Error(`no graph for ${JSON.stringify(body)}`);
    return graph;
  };
  const ids = (g: RelatedGraph) => g.nodes.map((n) => n.id);
  const stubIds = (g: RelatedGraph) => ids(g).filter((id) => id.startsWith('ref:'));

  it('a PR that says "Fixes #123" shows #123 as a stub issue node with a fixes edge', async () => {
    const ws = await workspace();
    const [pr] = await ws.add([gh('pull_request', 10, 'Fix crash on empty config', 'Treat an empty file as the defaults.\n\nFixes #123', 3)]);
    const g = await related(ws.id, { id: pr });
    const confidence = (await listItemRefs(index.db, pr!)).find((r) => r.key === 'gh:acme/widgets#123' && r.relation === 'fixes')?.confidence;
    expect(confidence).toBeGreaterThan(0);
    expect(g.nodes).toContainEqual({
      id: STUB_123,
      title: 'acme/widgets#123',
      source: 'github',
      type: 'issue',
      url: 'https://github.com/acme/widgets/issues/123',
      occurredAt: day(3),
      isRoot: false,
    });
    expect(g.edges).toEqual([{ source: pr, target: STUB_123, type: 'fixes', linkingKey: 'gh:acme/widgets#123', confidence }]);
  });

  it('a stub is not an item: contents misses it and related on it finds nothing', async () => {
    const ws = await workspace();
    await ws.add([gh('pull_request', 10, 'Fix crash on empty config', 'Fixes #123', 3)]);
    expect((await getContents(index.db, ws.id, [STUB_123])).missing).toEqual([STUB_123]);
    expect(await getRelatedGraph(index.db, ws.id, RelatedRequest.parse({ id: STUB_123 }))).toBeNull();
  });

  it('once issue #123 is indexed, the real issue replaces the stub', async () => {
    const ws = await workspace();
    const [pr] = await ws.add([gh('pull_request', 10, 'Fix crash on empty config', 'Fixes #123', 3)]);
    expect(stubIds(await related(ws.id, { id: pr }))).toEqual([STUB_123]);
    const [issue] = await ws.add([gh('issue', 123, 'Crash on empty config', 'widgets crashes when the config file is empty.', 1)]);
    const g = await related(ws.id, { id: pr });
    expect(stubIds(g)).toEqual([]);
    expect(ids(g)).toEqual([pr, issue]);
    expect(g.edges).toEqual([expect.objectContaining({ source: pr, target: issue, type: 'fixes', linkingKey: 'gh:acme/widgets#123' })]);
  });

  it('the same issue fixed by two items is one stub with two edges, dated by its first reference', async () => {
    const ws = await workspace();
    const [first, second] = await ws.add([
      gh('pull_request', 10, 'Fix crash on empty config', 'Fixes #123', 2),
      gh('pull_request', 11, 'Fix crash on empty config, take two', 'Really fixes #123. Follow-up to #10.', 3),
    ]);
    const g = await related(ws.id, { id: second });
    expect(ids(g).sort()).toEqual([first, second, STUB_123].sort());
    const toStub = g.edges.filter((e) => e.target === STUB_123);
    expect(toStub.map((e) => e.source).sort()).toEqual([first, second].sort());
    expect(toStub.every((e) => e.type === 'fixes')).toBe(true);
    expect(g.nodes.find((n) => n.id === STUB_123)?.occurredAt).toBe(day(2));
  });

  it("a squash commit repeating its PR's \"Fixes #123\" adds no second edge: the change fixed it once, as the PR", async () => {
    const ws = await workspace();
    const [pr, c] = await ws.add([
      gh('pull_request', 10, 'Fix crash on empty config', 'Fixes #123', 3, { refs: [{ key: `commit:${SHA}`, relation: 'contains', confidence: 1 }] }),
      commit(SHA, 'Fix crash on empty config (#10)', 'Fixes #123', 3),
    ]);
    const g = await related(ws.id, { id: pr });
    expect(ids(g).sort()).toEqual([pr, c, STUB_123].sort());
    expect(g.edges.filter((e) => e.target === STUB_123).map((e) => e.source)).toEqual([pr]);
    // A commit on its own (no PR) keeps its own edge.
    const [lone] = await ws.add([commit('d4e5f60718293a4b5c6d7e8f901234567890abc1', 'Hotfix the empty config crash', 'Fixes #124', 4)]);
    expect(stubIds(await related(ws.id, { id: lone }))).toEqual(['ref:gh:acme/widgets#124']);
  });

  it('depth: a stub two hops from the root needs depth 2', async () => {
    const ws = await workspace();
    const [issue5, pr] = await ws.add([
      gh('issue', 5, 'Config loading is slow', 'Loading widgets.config.json takes seconds.', 1),
      gh('pull_request', 10, 'Cache the parsed config', 'Fixes #5\n\nAlso fixes #123', 3),
    ]);
    const one = await related(ws.id, { id: issue5 });
    expect(ids(one)).toEqual([issue5, pr]);
    const two = await related(ws.id, { id: issue5, depth: 2 });
    expect(ids(two)).toEqual([issue5, pr, STUB_123]);
    expect(two.edges).toContainEqual(expect.objectContaining({ source: pr, target: STUB_123, type: 'fixes' }));
  });

  it('limit counts stubs like real nodes, root included', async () => {
    const ws = await workspace();
    const [pr] = await ws.add([gh('pull_request', 10, 'Fix three config crashes', 'Closes: #123, #124 and #125', 3)]);
    expect(stubIds(await related(ws.id, { id: pr })).sort()).toEqual([STUB_123, 'ref:gh:acme/widgets#124', 'ref:gh:acme/widgets#125']);
    const g = await related(ws.id, { id: pr, limit: 3 });
    expect(g.nodes).toHaveLength(3);
    expect(g.nodes[0]?.id).toBe(pr);
    expect(g.edges).toHaveLength(2);
    expect(ids(await related(ws.id, { id: pr, limit: 1 }))).toEqual([pr]);
  });

  it('types: stubs come only with the fixes edge type', async () => {
    const ws = await workspace();
    const [pr, c] = await ws.add([
      gh('pull_request', 10, 'Fix crash on empty config', 'Fixes #123', 3, { refs: [{ key: `commit:${SHA}`, relation: 'contains', confidence: 1 }] }),
      commit(SHA, 'Treat an empty config as defaults', 'Defaults for an empty file.', 2),
    ]);
    const fixes = await related(ws.id, { id: pr, types: ['fixes'] });
    expect(ids(fixes)).toEqual([pr, STUB_123]);
    const commits = await related(ws.id, { id: pr, types: ['commit_pr'] });
    expect(ids(commits)).toEqual([pr, c]);
    expect(commits.edges.every((e) => e.type === 'commit_pr')).toBe(true);
  });

  it('no stubs for mentions, reverts or non-GitHub keys', async () => {
    const ws = await workspace();
    const [pr] = await ws.add([
      gh('pull_request', 10, 'Rework config loading', 'Refs #200\n\nReverts #201', 3, { refs: [{ key: 'linear:ENG-9', relation: 'fixes', confidence: 1 }] }),
    ]);
    const refs = await listItemRefs(index.db, pr!);
    expect(refs.map((r) => r.key)).toEqual(expect.arrayContaining(['gh:acme/widgets#200', 'gh:acme/widgets#201', 'linear:ENG-9']));
    const g = await related(ws.id, { id: pr, depth: 3 });
    expect(ids(g)).toEqual([pr]);
    expect(g.edges).toEqual([]);
  });
});
