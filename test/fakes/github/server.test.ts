import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGitHub, FakeGitHubOptions } from './index.js';
import { startFakeGitHub, syntheticDiscussions, syntheticIssues } from './index.js';
import type { FakePull } from './model.js';

const REPO = 'prettier/prettier';
const TOKEN = 'ghp_fake_server_test';
const auth = { authorization: `token ${TOKEN}` };

// Three pull requests whose update order differs from their creation order.
const pull = (number: number, created: string, merged: string): FakePull => ({
  type: 'pull_request', number, title: `PR ${number}`, body: null, user: { login: 'fisker' }, labels: [], state: 'closed', merged: true,
  created_at: created, merged_at: merged, closed_at: merged, merge_commit_sha: null, files: [{ filename: `f${number}.js`, status: 'modified' }], commit_shas: [],
});
const pulls = [pull(10, '2026-01-01T00:00:00Z', '2026-01-09T00:00:00Z'), pull(11, '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z'), pull(12, '2026-01-03T00:00:00Z', '2026-01-05T00:00:00Z')];

let gh: FakeGitHub | undefined;
const start = async (extra: Partial<FakeGitHubOptions> = {}) => {
  gh = await startFakeGitHub({ repo: REPO, token: TOKEN, items: [...pulls, ...syntheticIssues(4, { firstNumber: 20 }), ...syntheticDiscussions(3, { firstNumber: 40 })], ...extra });
  return gh;
};
const get = (path: string, headers: Record<string, string> = auth) => fetch(`${gh!.url}${path}`, { headers });
afterEach(async () => {
  await gh?.close();
  gh = undefined;
});

describe('fake GitHub server', () => {
  it('requires the token', async () => {
    await start();
    expect((await get(`/repos/${REPO}/pulls`, {})).status).toBe(401);
    expect((await get(`/repos/${REPO}/pulls`, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await get(`/repos/${REPO}/pulls`, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect(gh!.state.unauthorized).toBe(2);
  });

  it('sorts and paginates like GitHub, with Link headers', async () => {
    await start();
    const res = await get(`/repos/${REPO}/pulls?state=all&sort=updated&per_page=2`);
    // sort=updated defaults to ascending.
    expect(((await res.json()) as { number: number }[]).map((p) => p.number)).toEqual([11, 12]);
    const link = res.headers.get('link') ?? '';
    expect(link).toContain('page=2>; rel="next"');
    expect(link).toContain('rel="last"');
    const next = /<([^>]+)>; rel="next"/.exec(link)![1]!;
    expect(((await (await fetch(next, { headers: auth })).json()) as { number: number }[]).map((p) => p.number)).toEqual([10]);
    // The default list is open pull requests only, newest created first.
    expect(await (await get(`/repos/${REPO}/pulls`)).json()).toEqual([]);
  });

  it('lists pull requests among issues, marked with a pull_request key, and filters by since', async () => {
    await start();
    const all = (await (await get(`/repos/${REPO}/issues?state=all&per_page=100`)).json()) as { number: number; pull_request?: unknown }[];
    expect(all).toHaveLength(7);
    expect(all.filter((i) => i.pull_request).map((i) => i.number).sort()).toEqual([10, 11, 12]);
    const since = (await (await get(`/repos/${REPO}/issues?state=all&since=2026-01-04T00:00:00Z`)).json()) as { number: number }[];
    expect(since.map((i) => i.number).sort()).toEqual([10, 12]);
  });

  it('answers a matching If-None-Match with an empty 304 that spends no rate limit', async () => {
    await start();
    const first = await get(`/repos/${REPO}/pulls/10`);
    const etag = first.headers.get('etag')!;
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await get(`/repos/${REPO}/pulls/10`, { ...auth, 'if-none-match': etag });
    expect(second.status).toBe(304);
    expect(await second.text()).toBe('');
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(remaining);
    expect(gh!.state.notModified).toBe(1);
  });

  it('spends the primary budget, then refuses with remaining 0 until the reset', async () => {
    await start({ rateLimit: { limit: 2, resetMs: 60_000, status: 429 } });
    await get(`/repos/${REPO}/pulls/10`);
    await get(`/repos/${REPO}/pulls/11`);
    const refused = await get(`/repos/${REPO}/pulls/12`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(Date.now());
    expect(gh!.state.rateLimited).toBe(1);
  });

  it('injects secondary limits with retry-after and bursts of server errors', async () => {
    await start({ secondaryLimit: { every: 2, retryAfterSeconds: 3 }, failBursts: { every: 4, length: 1, status: 503 } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await get(`/repos/${REPO}/pulls/10`);
      statuses.push(res.status);
      if (res.status === 403) expect(res.headers.get('retry-after')).toBe('3');
    }
    expect(statuses).toEqual([200, 403, 200, 503, 403]);
  });

  it('serves docs as a tree and base64 contents, and discussions through GraphQL under the Enterprise prefixes', async () => {
    await start({ docs: [{ path: 'docs/options.md', content: '# Options\n' }] });
    const tree = (await (await get(`/api/v3/repos/${REPO}/git/trees/main?recursive=1`)).json()) as { tree: { path: string; type: string }[] };
    expect(tree.tree.map((e) => `${e.type}:${e.path}`)).toEqual(['tree:docs', 'blob:docs/options.md']);
    const file = (await (await get(`/repos/${REPO}/contents/docs/options.md`)).json()) as { content: string };
    expect(Buffer.from(file.content, 'base64').toString()).toBe('# Options\n');
    const query = 'query($owner: String!, $name: String!, $first: Int!, $after: String) { repository(owner: $owner, name: $name) { discussions(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { number } } } }';
    const page = async (after: string | null) => (await (await fetch(`${gh!.url}/api/graphql`, {
      method: 'POST', headers: auth, body: JSON.stringify({ query, variables: { owner: 'prettier', name: 'prettier', first: 2, after } }),
    })).json()) as { data: { repository: { discussions: { pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: { number: number }[] } } } };
    const one = (await page(null)).data.repository.discussions;
    const two = (await page(one.pageInfo.endCursor)).data.repository.discussions;
    expect([one.pageInfo.hasNextPage, two.pageInfo.hasNextPage]).toEqual([true, false]);
    expect([...one.nodes, ...two.nodes].map((n) => n.number).sort()).toEqual([40, 41, 42]);
  });
});
