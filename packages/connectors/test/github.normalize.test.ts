import { describe, expect, it } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import { hasPrettierCorpus, loadPrettierCorpus, PRETTIER_CORPUS_PATH } from '../../../test/fakes/github/index.js';
import { detectGitHubKind, normalizeGitHubObject } from '../src/github/normalize.js';

const REPO = 'prettier/prettier';
const find = (pred: (x: Record<string, unknown>) => boolean) => {
  const hit = (loadPrettierCorpus() as unknown as Record<string, unknown>[]).find(pred);
  if (!hit) throw new Error('corpus object not found');
  return hit;
};

describe.skipIf(!hasPrettierCorpus())(`normalizeGitHubObject on the prettier export (${PRETTIER_CORPUS_PATH})`, () => {
  it('maps pull request #19702 with its files, commit and merge', () => {
    const e = normalizeGitHubObject(find((x) => x.number === 19702), REPO);
    expect(e).toMatchObject({
      source: 'github',
      type: 'pull_request',
      externalId: 'github:prettier/prettier:pull_request:19702',
      url: 'https://github.com/prettier/prettier/pull/19702',
      title: 'Update meriyah to v7.2',
      body: '',
      occurredAt: '2026-07-24T01:12:15.000Z',
      updatedAt: '2026-07-24T01:12:15.000Z',
      keys: ['pr:prettier/prettier#19702'],
      container: REPO,
      state: 'merged',
      actors: [{ role: 'author', provider: 'github', login: 'fisker-cheung' }],
    });
    expect(e.refs).toEqual([
      { key: 'commit:4f84a934201322ca87750e2b9b25baf296da6560', relation: 'contains', confidence: 1 },
      { key: 'commit:4f84a934201322ca87750e2b9b25baf296da6560', relation: 'merged_as', confidence: 1 },
    ]);
    expect(e.files).toHaveLength(8);
    expect(e.files).toContain('tests/format/js/babel-plugins/format.test.js');
    expect(e.metadata).toMatchObject({ number: 19702, merged: true, merged_at: '2026-07-24T01:12:15.000Z', files_total: 8, files_truncated: false, commits: 1 });
  });

  it('keeps a pull request body and every commit of a multi-commit pull request', () => {
    const withBody = normalizeGitHubObject(find((x) => x.number === 19489), REPO);
    expect(withBody.body).toBe('fix #19488: check corresponding closing token in liquid syntax\nfix #19488');
    // created_at +09:00 and merged_at +08:00 are the same instant: both end up in UTC.
    expect(withBody.occurredAt).toBe('2026-06-29T11:10:31.000Z');
    const multi = normalizeGitHubObject(find((x) => x.number === 19675), REPO);
    expect(multi.refs.filter((r) => r.relation === 'contains').map((r) => r.key)).toEqual([
      'commit:f33bc6841eb2b773bd94e5a7fdbd204a9d32b37c',
      'commit:ec3f1c7bd74495992bc6954323a1a7fc8368808e',
    ]);
    expect(multi.refs.find((r) => r.relation === 'merged_as')?.key).toBe('commit:f33bc6841eb2b773bd94e5a7fdbd204a9d32b37c');
    // GitHub's account type `Bot` is carried as `bot`, so a bot is known as one whatever its name.
    expect(multi.actors).toEqual([{ role: 'author', provider: 'github', login: 'renovate[bot]', bot: true }]);
  });

  it('maps commit e79f6b74: first message line as title, the rest as body, author and committer', () => {
    const e = normalizeGitHubObject(find((x) => x.sha === 'e79f6b74da85289de6eb1c621833031d2b1539c2'), REPO);
    expect(e).toMatchObject({
      type: 'commit',
      externalId: 'github:prettier/prettier:commit:e79f6b74da85289de6eb1c621833031d2b1539c2',
      url: 'https://github.com/prettier/prettier/commit/e79f6b74da85289de6eb1c621833031d2b1539c2',
      title: 'Update Yuku parser to v0.8.0 (#19699)',
      body: 'Co-authored-by: renovate[bot]\nCo-authored-by: fisker',
      occurredAt: '2026-07-23T11:22:45.000Z',
      updatedAt: '2026-07-23T11:22:45.000Z',
      keys: ['commit:e79f6b74da85289de6eb1c621833031d2b1539c2'],
      refs: [],
      files: ['package.json', 'src/language-js/parse/yuku.js', 'yarn.lock'],
      container: REPO,
    });
    expect(e.actors).toEqual([
      { role: 'author', provider: 'github', login: 'renovate[bot]', name: 'renovate[bot]', bot: true },
      { role: 'committer', provider: 'github', login: 'github', name: 'GitHub' },
    ]);
    expect(e.metadata).toMatchObject({ parents: ['7b421c25c52dd55ff1ab32c39b734c144485b9d4'], files_total: 3 });
  });

  it('produces valid source events for 600 corpus objects, with unique ids', () => {
    const corpus = loadPrettierCorpus();
    const sample = [...corpus.slice(0, 300), ...corpus.slice(5000, 5300)];
    const events = sample.map((x) => SourceEvent.parse(normalizeGitHubObject(x, REPO)));
    expect(new Set(events.map((e) => e.externalId)).size).toBe(600);
    expect(events.filter((e) => e.type === 'pull_request').every((e) => e.keys[0]?.startsWith('pr:prettier/prettier#') && e.files.length > 0)).toBe(true);
  });
});

describe('normalizeGitHubObject on REST shapes', () => {
  const user = (login: string) => ({ login, id: 1, type: 'User' });

  it('reads an issue, and a pull request listed through the issues endpoint', () => {
    const issue = normalizeGitHubObject({
      number: 19488, html_url: 'https://github.com/prettier/prettier/issues/19488', title: 'Liquid closing token', body: 'Repro',
      user: user('seiyab'), labels: [{ name: 'lang:markdown' }], assignees: [user('fisker')], state: 'closed', state_reason: 'completed',
      comments: 2, created_at: '2026-06-20T10:00:00Z', updated_at: '2026-06-29T11:10:31Z', closed_at: '2026-06-29T11:10:31Z', type: null,
    }, REPO);
    expect(issue).toMatchObject({
      type: 'issue', externalId: 'github:prettier/prettier:issue:19488', keys: ['issue:prettier/prettier#19488'], labels: ['lang:markdown'], state: 'closed',
      actors: [{ role: 'author', provider: 'github', login: 'seiyab' }, { role: 'assignee', provider: 'github', login: 'fisker' }],
    });
    const pullAsIssue = normalizeGitHubObject({
      number: 19489, html_url: 'https://github.com/prettier/prettier/pull/19489', title: 'Correct text identification', body: null, user: user('seiyab'),
      labels: [], state: 'closed', created_at: '2026-06-29T11:10:31Z', updated_at: '2026-06-29T11:10:31Z', closed_at: '2026-06-29T11:10:31Z',
      pull_request: { url: 'x', merged_at: '2026-06-29T11:10:31Z' },
    }, REPO);
    expect(pullAsIssue).toMatchObject({ type: 'pull_request', keys: ['pr:prettier/prettier#19489'], state: 'merged' });
  });

  it('points a comment at its pull request or issue, and reads a discussion', () => {
    const onPull = normalizeGitHubObject({
      id: 77, html_url: 'https://github.com/prettier/prettier/pull/19489#issuecomment-77', issue_url: 'https://api.github.com/repos/prettier/prettier/issues/19489',
      body: 'LGTM', user: user('fisker'), created_at: '2026-06-29T11:00:00Z', updated_at: '2026-06-29T11:05:00Z',
    }, REPO);
    expect(onPull).toMatchObject({ type: 'comment', title: null, body: 'LGTM', refs: [{ key: 'pr:prettier/prettier#19489', relation: 'parent', confidence: 1 }], actors: [{ role: 'commenter', login: 'fisker' }] });
    const discussion = normalizeGitHubObject({
      number: 15000, html_url: 'https://github.com/prettier/prettier/discussions/15000', title: 'Ternaries', body: 'Why?', user: user('rattrayalex'),
      category: { name: 'Ideas' }, state: 'open', created_at: '2023-11-13T00:00:00Z', updated_at: '2023-11-14T00:00:00Z', answer_chosen_at: null,
    }, REPO);
    expect(discussion).toMatchObject({ type: 'discussion', keys: ['discussion:prettier/prettier#15000'], state: 'open', metadata: { category: 'Ideas', answered: false } });
  });

  it('refuses objects that are none of the known kinds', () => {
    expect(detectGitHubKind({ login: 'fisker' })).toBeNull();
    expect(() => normalizeGitHubObject({ login: 'fisker' }, REPO)).toThrow(/not a GitHub/);
  });
});
