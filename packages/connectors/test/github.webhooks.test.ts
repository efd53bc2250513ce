import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { SourceEvent } from '@engram/contracts';
import { deliverWebhook, hasPrettierCorpus, prettierSubset, signWebhook, startFakeGitHub } from '../../../test/fakes/github/index.js';
import { normalizeGitHubWebhook, verifyGitHubSignature } from '../src/github/webhooks.js';

const SECRET = 'whsec_engram_test';
const REPO = 'prettier/prettier';
const repository = { full_name: REPO, name: 'prettier', owner: { login: 'prettier' } };

describe('verifyGitHubSignature', () => {
  const body = Buffer.from(JSON.stringify({ action: 'opened', number: 19702 }));

  it('accepts the signature GitHub computes for the raw body', () => {
    expect(verifyGitHubSignature(SECRET, body, signWebhook(SECRET, body))).toBe(true);
  });

  it('rejects a tampered body, another secret, a truncated or missing header', () => {
    const header = signWebhook(SECRET, body);
    const tampered = Buffer.from(body.toString().replace('19702', '19703'));
    expect(verifyGitHubSignature(SECRET, tampered, header)).toBe(false);
    expect(verifyGitHubSignature('another-secret', body, header)).toBe(false);
    expect(verifyGitHubSignature(SECRET, body, header.slice(0, -2))).toBe(false);
    expect(verifyGitHubSignature(SECRET, body, header.replace('sha256=', 'sha1='))).toBe(false);
    expect(verifyGitHubSignature(SECRET, body, undefined)).toBe(false);
  });

  it('guards a receiver end to end: signed deliveries are taken, forged ones refused', async () => {
    const received: SourceEvent[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (!verifyGitHubSignature(SECRET, raw, req.headers['x-hub-signature-256'] as string | undefined)) {
          res.writeHead(401).end('bad signature');
          return;
        }
        received.push(...normalizeGitHubWebhook(String(req.headers['x-github-event']), JSON.parse(raw.toString()), REPO));
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/github`;
    try {
      const issue = {
        number: 30_001, html_url: 'https://github.com/prettier/prettier/issues/30001', title: 'Crash on empty file', body: 'Steps',
        user: { login: 'seiyab' }, labels: [], state: 'open', created_at: '2026-07-01T00:00:00Z', updated_at: '2026-07-01T00:00:00Z', closed_at: null,
      };
      const good = await deliverWebhook(url, { event: 'issues', payload: { action: 'opened', issue, repository }, secret: SECRET });
      const forged = await deliverWebhook(url, { event: 'issues', payload: { action: 'opened', issue, repository }, secret: 'guessed' });
      expect([good.status, forged.status]).toEqual([202, 401]);
      expect(received.map((e) => e.externalId)).toEqual(['github:prettier/prettier:issue:30001']);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });
});

describe.skipIf(!hasPrettierCorpus())('normalizeGitHubWebhook on payloads built from prettier data (needs shared/data/github-prettier)', () => {
  it('maps pull_request, push, issue_comment and discussion deliveries', async () => {
    const { pulls, commits } = prettierSubset({ pulls: 3, commits: 3 });
    const gh = await startFakeGitHub({ repo: REPO, token: 't', items: [...pulls, ...commits] });
    let pull: unknown;
    try {
      pull = await (await fetch(`${gh.url}/repos/${REPO}/pulls/19702`, { headers: { authorization: 'token t' } })).json();
    } finally {
      await gh.close();
    }
    const [pr] = normalizeGitHubWebhook('pull_request', { action: 'closed', number: 19702, pull_request: pull, repository }, REPO);
    expect(pr).toMatchObject({ type: 'pull_request', keys: ['pr:prettier/prettier#19702'], state: 'merged', metadata: { head_branch: 'pr-19702', base_branch: 'main' } });

    const head = commits[0]!;
    const push = normalizeGitHubWebhook('push', {
      ref: 'refs/heads/main', before: commits[1]!.sha, after: head.sha, repository,
      commits: [{
        id: head.sha, message: head.commit.message, timestamp: head.commit.author.date, url: `https://github.com/${REPO}/commit/${head.sha}`,
        author: { name: head.commit.author.name, email: 'fisker@example.com', username: head.author?.login },
        committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
        added: [], removed: [], modified: head.files!.map((f) => f.filename),
      }],
    }, REPO);
    expect(push).toHaveLength(1);
    expect(push[0]).toMatchObject({
      type: 'commit', keys: [`commit:${head.sha}`], title: 'Update meriyah to v7.2 (#19702)', files: head.files!.map((f) => f.filename),
      actors: [{ role: 'author', login: 'fisker-cheung', email: 'fisker@example.com' }, { role: 'committer', login: 'web-flow' }],
      metadata: { pushed_ref: 'refs/heads/main' },
    });

    const comment = normalizeGitHubWebhook('issue_comment', {
      action: 'created', repository, issue: { number: 19702, pull_request: {} },
      comment: { id: 5, html_url: `https://github.com/${REPO}/pull/19702#issuecomment-5`, body: 'Thanks!', user: { login: 'fisker' }, created_at: '2026-07-24T02:00:00Z', updated_at: '2026-07-24T02:00:00Z' },
    }, REPO);
    expect(comment[0]?.refs).toEqual([{ key: 'pr:prettier/prettier#19702', relation: 'parent', confidence: 1 }]);

    const discussion = normalizeGitHubWebhook('discussion', {
      action: 'answered', repository,
      discussion: { number: 15000, html_url: `https://github.com/${REPO}/discussions/15000`, title: 'Ternaries', body: 'Why?', user: { login: 'rattrayalex' }, category: { name: 'Q&A' }, state: 'open', created_at: '2023-11-13T00:00:00Z', updated_at: '2023-11-14T00:00:00Z', answer_chosen_at: '2023-11-14T00:00:00Z' },
    }, REPO);
    expect(discussion[0]).toMatchObject({ type: 'discussion', metadata: { answered: true, category: 'Q&A' } });
    expect(normalizeGitHubWebhook('ping', { zen: 'Keep it logically awesome.' }, REPO)).toEqual([]);
  });
});
