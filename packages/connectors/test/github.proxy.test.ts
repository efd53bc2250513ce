import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../../../test/fakes/github/index.js';
import { hasPrettierCorpus, prettierSubset, startFakeGitHub, syntheticDiscussions, syntheticIssues } from '../../../test/fakes/github/index.js';
import type { Connector } from '../src/types.js';
import { createGitHubConnector } from '../src/github/connector.js';

const REPO = 'prettier/prettier';
const TOKEN = 'ghp_proxy_test_secret';

describe.skipIf(!hasPrettierCorpus())('GitHub fetch by URL and proxy actions (needs shared/data/github-prettier)', () => {
  let gh: FakeGitHub;
  let connector: Connector;
  const run = (name: string, params: Record<string, unknown>) => {
    const action = connector.actions().find((a) => a.action === name);
    if (!action) throw new Error(`no action ${name}`);
    return action.run(action.params.parse(params));
  };

  beforeAll(async () => {
    const { pulls, commits } = prettierSubset({ pulls: 40, commits: 60 });
    gh = await startFakeGitHub({
      repo: REPO, token: TOKEN,
      items: [...pulls, ...commits, ...syntheticIssues(5, { firstNumber: 30_000 }), ...syntheticDiscussions(2, { firstNumber: 31_000 })],
    });
    // GitHub Enterprise Server style base URL: https://<host>/api/v3.
    connector = createGitHubConnector({ repo: REPO, token: TOKEN, baseUrl: `${gh.url}/api/v3`, webUrl: 'https://github.com' });
  });
  afterAll(() => gh.close());

  it('fetches pull requests, issues, commits and discussions by their web URLs', async () => {
    const pr = await connector.fetchByUrl('https://github.com/prettier/prettier/pull/19675/files');
    expect(pr).toMatchObject({ type: 'pull_request', title: 'Update typescript-eslint to v8.65.0', state: 'merged', metadata: { merged: true, files_total: 12 } });
    expect(pr?.refs.filter((r) => r.relation === 'contains')).toHaveLength(2);
    // /issues/N of a pull request is that pull request.
    expect((await connector.fetchByUrl('https://github.com/prettier/prettier/issues/19675'))?.externalId).toBe('github:prettier/prettier:pull_request:19675');
    expect(await connector.fetchByUrl('https://github.com/Prettier/Prettier/issues/30002')).toMatchObject({ type: 'issue', keys: ['issue:prettier/prettier#30002'] });
    expect(await connector.fetchByUrl('https://github.com/prettier/prettier/commit/4f84a934')).toMatchObject({ type: 'commit', keys: ['commit:4f84a934201322ca87750e2b9b25baf296da6560'] });
    expect(await connector.fetchByUrl('https://github.com/prettier/prettier/discussions/31001')).toMatchObject({ type: 'discussion', title: 'Should option 1 be deprecated?' });
  });

  it('returns null for other repositories, hosts, unknown numbers and non-object pages', async () => {
    for (const url of [
      'https://github.com/facebook/react/pull/1',
      'https://gitlab.com/prettier/prettier/pull/19675',
      'https://github.com/prettier/prettier/pull/99999999',
      'https://github.com/prettier/prettier/discussions/4',
      'https://github.com/prettier/prettier/blob/main/README.md',
      'not a url',
    ]) {
      expect(await connector.fetchByUrl(url), url).toBeNull();
    }
  });

  it('advertises the repository and seven actions with param schemas', () => {
    expect(connector.resources()).toEqual([{
      name: 'prettier/prettier', params: { owner: 'prettier', repo: 'prettier' },
      syncing: ['pull_requests', 'issues', 'issue_comments', 'commits', 'discussions', 'docs'],
    }]);
    const actions = connector.actions();
    expect(actions.map((a) => a.action)).toEqual([
      'github.list-pull-requests', 'github.get-pull-request', 'github.list-issues', 'github.get-issue', 'github.list-commits', 'github.get-commit', 'github.search-issues',
    ]);
    expect(actions.every((a) => a.description.length > 10 && a.params.safeParse({}).success === false)).toBe(true);
  });

  it('proxies calls with the stored token and hands back only safe headers', async () => {
    const list = await run('github.list-pull-requests', { owner: 'prettier', repo: 'prettier', state: 'all', per_page: 5 });
    expect(list.status).toBe(200);
    expect((list.data as { number: number }[]).map((p) => p.number)).toHaveLength(5);
    expect(Object.keys(list.headers).sort()).toEqual(['content-type', 'etag', 'link', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-resource', 'x-ratelimit-used']);
    expect(JSON.stringify(list)).not.toContain(TOKEN);

    const commit = await run('github.get-commit', { owner: 'prettier', repo: 'prettier', ref: '4f84a934201322ca87750e2b9b25baf296da6560' });
    expect((commit.data as { files: unknown[] }).files).toHaveLength(8);

    const search = await run('github.search-issues', { owner: 'prettier', repo: 'prettier', q: 'meriyah is:pr' });
    expect(search.status).toBe(200);
    expect((search.data as { items: { number: number }[] }).items.map((i) => i.number)).toContain(19702);
  });

  it('returns a provider 404 as a result and refuses repositories outside the connection', async () => {
    const missing = await run('github.get-issue', { owner: 'prettier', repo: 'prettier', issue_number: 424242 });
    expect(missing).toMatchObject({ status: 404, data: { message: 'Not Found' } });
    const elsewhere = await run('github.get-issue', { owner: 'facebook', repo: 'react', issue_number: 1 });
    expect(elsewhere.status).toBe(403);
    expect(gh.state.log.some((r) => r.path.includes('facebook'))).toBe(false);
  });
});
