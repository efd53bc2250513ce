import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceEvent } from '@engram/contracts';
import type { FakeGitHub, FakePull, Walk } from '../../../test/fakes/github/index.js';
import {
  hasPrettierCorpus, prettierSubset, startFakeGitHub, syntheticComments, syntheticDiscussions, syntheticIssues, walkStream,
} from '../../../test/fakes/github/index.js';
import type { ConnectorStream } from '../src/types.js';
import { createGitHubConnector } from '../src/github/connector.js';

const REPO = 'prettier/prettier';
const TOKEN = 'ghp_streams_test';
const ids = (events: SourceEvent[]) => events.map((e) => e.externalId);

describe.skipIf(!hasPrettierCorpus())('GitHub streams against the fake GitHub fed with prettier data (needs shared/data/github-prettier)', () => {
  let gh: FakeGitHub;
  let pulls: FakePull[];
  let fullPullWalk: Walk<SourceEvent>;
  const issues = syntheticIssues(45, { firstNumber: 30_000 });
  const discussions = syntheticDiscussions(23, { firstNumber: 31_000 });
  const docs = [
    { path: 'README.md', content: '# Prettier\n\nAn opinionated code formatter.' },
    { path: 'docs/options.md', content: '---\nid: options\ntitle: Options\n---\n\nPrettier ships with a few options.' },
    { path: 'docs/rationale.md', content: '# Rationale\n\nWhy Prettier formats the way it does.' },
    { path: 'CHANGELOG.md', content: '# 3.9.0\n\n- Fix liquid closing tokens' },
    { path: 'changelog_unreleased/markdown/19489.md', content: '#### Fix liquid' },
    { path: 'website/blog/2026-06-27-3.9.0.md', content: '# Prettier 3.9' },
    { path: 'src/index.js', content: 'export {}' },
  ];
  const connector = (perPage = 25) => createGitHubConnector({ repo: REPO, token: TOKEN, baseUrl: gh.url, perPage, concurrency: 8, webUrl: 'https://github.com' });
  const stream = (name: string, c = connector()): ConnectorStream => {
    const s = c.streams().find((x) => x.name === name);
    if (!s) throw new Error(`no stream ${name}`);
    return s;
  };

  beforeAll(async () => {
    const subset = prettierSubset({ pulls: 100, commits: 220 });
    // One pull request gets reviews, which the export lacks.
    pulls = subset.pulls.map((p, i) => (i === 3 ? { ...p, reviews: [
      { user: { login: 'sosukesuzuki' }, state: 'APPROVED', submitted_at: p.created_at },
      { user: p.user, state: 'COMMENTED', submitted_at: p.created_at },
    ] } : p));
    gh = await startFakeGitHub({
      repo: REPO, token: TOKEN, docs,
      items: [...pulls, ...subset.commits, ...issues, ...discussions, ...syntheticComments([30_000, 30_001, pulls[0]!.number], 12, { firstId: 900_000 })],
    });
    fullPullWalk = await walkStream(stream('pull_requests'));
  });
  afterAll(() => gh.close());

  it('walks every pull request exactly once, with files, commits and reviewers', async () => {
    const { events, pages } = fullPullWalk;
    expect(pages).toBe(4);
    expect(ids(events).sort()).toEqual(pulls.map((p) => `github:prettier/prettier:pull_request:${p.number}`).sort());
    const reviewed = events.find((e) => e.metadata.number === pulls[3]!.number);
    expect(reviewed?.actors.filter((a) => a.role === 'reviewer').map((a) => a.login)).toEqual(['sosukesuzuki']);
    const multi = events.find((e) => e.metadata.number === 19675);
    expect(multi?.refs.filter((r) => r.relation === 'contains')).toHaveLength(2);
    expect(multi?.files).toHaveLength(12);
    // Newest change first.
    expect(events[0]?.metadata.number).toBe(pulls[0]?.number);
  });

  it('resumes a pull request walk from a saved cursor without gaps or duplicates', async () => {
    const saved = fullPullWalk.checkpoints[1] ?? null;
    expect(saved).toEqual({ page: 3 });
    // A new connector (as after a worker restart) continues from the stored checkpoint.
    const rest = await walkStream(stream('pull_requests', connector()), { from: saved });
    const all = ids([...fullPullWalk.events.slice(0, 50), ...rest.events]);
    expect(all).toHaveLength(100);
    expect(new Set(all).size).toBe(100);
    const again = await stream('pull_requests').fetchPage(saved);
    expect(ids(again.events)).toEqual(ids(rest.events.slice(0, 25)));
  });

  it('walks commits newest first, each with its changed files, and resumes from a pinned cursor', async () => {
    const first = await walkStream(stream('commits'), { maxPages: 3 });
    const saved = first.checkpoints.at(-1) ?? null;
    expect(saved).toMatchObject({ page: 4, sha: '4f84a934201322ca87750e2b9b25baf296da6560' });
    const rest = await walkStream(stream('commits', connector()), { from: saved });
    const all = [...first.events, ...rest.events];
    expect(new Set(ids(all)).size).toBe(220);
    expect(all).toHaveLength(220);
    expect(all[0]?.title).toBe('Update meriyah to v7.2 (#19702)');
    expect(all.every((e) => e.files.length > 0 || e.metadata.files_total === 0)).toBe(true);
    const dates = all.map((e) => Date.parse(e.updatedAt));
    expect(dates.every((d, i) => i === 0 || d <= dates[i - 1]!)).toBe(true);
  });

  it('lists issues without the pull requests GitHub mixes into the issues endpoint', async () => {
    const { events } = await walkStream(stream('issues'));
    expect(events).toHaveLength(45);
    expect(events.every((e) => e.type === 'issue')).toBe(true);
    expect(new Set(ids(events)).size).toBe(45);
  });

  it('walks issue comments, each pointing at its issue or pull request', async () => {
    const { events } = await walkStream(stream('issue_comments', connector(10)));
    expect(events).toHaveLength(36);
    expect(new Set(ids(events)).size).toBe(36);
    const parents = new Set(events.flatMap((e) => e.refs.map((r) => r.key)));
    expect(parents).toEqual(new Set(['issue:prettier/prettier#30000', 'issue:prettier/prettier#30001', `pr:prettier/prettier#${pulls[0]!.number}`]));
  });

  it('pages discussions through GraphQL cursors and resumes from a saved endCursor', async () => {
    const first = await walkStream(stream('discussions', connector(10)), { maxPages: 1 });
    const saved = first.checkpoints[0] ?? null;
    expect(typeof saved?.after).toBe('string');
    const rest = await walkStream(stream('discussions', connector(10)), { from: saved });
    const all = [...first.events, ...rest.events];
    expect(all).toHaveLength(23);
    expect(new Set(ids(all)).size).toBe(23);
    expect(all.every((e) => e.type === 'discussion' && e.keys[0]?.startsWith('discussion:prettier/prettier#'))).toBe(true);
  });

  it('turns every Markdown file of the default branch into a document, the changelog and blog included', async () => {
    const { events } = await walkStream(stream('docs', connector(2)));
    expect(events.map((e) => e.metadata.path)).toEqual(['CHANGELOG.md', 'README.md', 'changelog_unreleased/markdown/19489.md', 'docs/options.md', 'docs/rationale.md', 'website/blog/2026-06-27-3.9.0.md']);
    expect(events.map((e) => e.title)).toEqual(['3.9.0', 'Prettier', '19489.md', 'Options', 'Rationale', 'Prettier 3.9']);
    expect(events[4]).toMatchObject({
      type: 'document', externalId: 'github:prettier/prettier:document:docs/rationale.md',
      url: 'https://github.com/prettier/prettier/blob/main/docs/rationale.md', body: docs[2]!.content, files: ['docs/rationale.md'],
    });
  });

  it('limits an incremental walk to objects changed since a time, and stops paging there', async () => {
    const since = fullPullWalk.events[12]!.updatedAt;
    const expected = fullPullWalk.events.filter((e) => e.updatedAt >= since);
    const before = gh.state.byRoute['GET /repos/:o/:r/pulls'] ?? 0;
    const inc = await walkStream(stream('pull_requests'), { since });
    expect(ids(inc.events).sort()).toEqual(ids(expected).sort());
    expect(inc.events.length).toBeGreaterThanOrEqual(13);
    expect(inc.pages).toBe(1);
    expect((gh.state.byRoute['GET /repos/:o/:r/pulls'] ?? 0) - before).toBe(1);

    const issueSince = '2025-01-02T12:00:00Z';
    const incIssues = await walkStream(stream('issues'), { since: issueSince });
    expect(incIssues.events.length).toBe(issues.filter((i) => i.updated_at >= issueSince).length);
    expect(incIssues.events.length).toBeLessThan(45);

    const commitSince = (await walkStream(stream('commits'), { maxPages: 1 })).events[9]!.updatedAt;
    const incCommits = await walkStream(stream('commits'), { since: commitSince });
    expect(incCommits.events.length).toBeGreaterThanOrEqual(10);
    expect(incCommits.events.length).toBeLessThan(25);
    expect(incCommits.events.every((e) => e.updatedAt >= commitSince)).toBe(true);
  });
});
