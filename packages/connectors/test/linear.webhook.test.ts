import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SourceEvent } from '@engram/contracts';
import { normalizeLinearWebhook, verifyLinearSignature } from '../src/linear/index.js';

const secret = 'lin_wh_secret_abc';
const sign = (body: string, key = secret) => createHmac('sha256', key).update(body).digest('hex');

const issuePayload = {
  action: 'update',
  type: 'Issue',
  createdAt: '2026-07-02T10:00:00.000Z',
  url: 'https://linear.app/acme/issue/ENG-41/flaky-watcher-test',
  organizationId: 'org-1',
  webhookTimestamp: 1782986400000,
  webhookId: 'wh-1',
  updatedFrom: { stateId: 'state-todo', updatedAt: '2026-07-01T09:00:00.000Z' },
  data: {
    id: 'issue-41', identifier: 'ENG-41', number: 41, title: 'Flaky watcher test on macOS',
    description: 'Started after https://github.com/prettier/prettier/pull/19686 landed.',
    url: 'https://linear.app/acme/issue/ENG-41/flaky-watcher-test', priority: 2, priorityLabel: 'High',
    createdAt: '2026-07-01T08:00:00.000Z', updatedAt: '2026-07-02T10:00:00.000Z',
    stateId: 'state-progress', state: { id: 'state-progress', name: 'In Progress', type: 'started', color: '#f2c94c' },
    teamId: 'team-eng', team: { id: 'team-eng', key: 'ENG', name: 'Engineering' },
    assigneeId: 'user-ana', assignee: { id: 'user-ana', name: 'Ana Souza', email: 'ana@acme.dev', url: 'https://linear.app/acme/profiles/ana' },
    labelIds: ['label-bug'], labels: [{ id: 'label-bug', name: 'Bug', color: '#eb5757' }],
    projectId: 'project-q3', project: { id: 'project-q3', name: 'Formatting quality Q3', url: 'https://linear.app/acme/project/q3' },
    subscriberIds: [], previousIdentifiers: [], reactionData: {}, sortOrder: 1, prioritySortOrder: 1,
  },
};

describe('verifyLinearSignature', () => {
  const body = JSON.stringify(issuePayload);
  it('accepts the HMAC-SHA256 of the exact body', () => {
    expect(verifyLinearSignature(secret, body, sign(body))).toBe(true);
    expect(verifyLinearSignature(secret, Buffer.from(body), [sign(body)])).toBe(true);
  });
  it('rejects a tampered body, another secret, and a missing or malformed header', () => {
    expect(verifyLinearSignature(secret, body.replace('ENG-41', 'ENG-42'), sign(body))).toBe(false);
    expect(verifyLinearSignature(secret, body, sign(body, 'other'))).toBe(false);
    expect(verifyLinearSignature(secret, body, undefined)).toBe(false);
    expect(verifyLinearSignature(secret, body, 'zz-not-hex')).toBe(false);
    expect(verifyLinearSignature(secret, body, sign(body).slice(0, 20))).toBe(false);
  });
});

describe('normalizeLinearWebhook', () => {
  it('turns an Issue update into the same shape a sync produces', () => {
    const event = normalizeLinearWebhook(issuePayload)!;
    expect(() => SourceEvent.parse(event)).not.toThrow();
    expect(event).toMatchObject({
      source: 'linear', type: 'issue', externalId: 'linear:issue:issue-41', keys: ['linear:ENG-41'], state: 'In Progress',
      container: 'ENG', labels: ['Bug'], title: 'Flaky watcher test on macOS', updatedAt: '2026-07-02T10:00:00.000Z',
    });
    expect(event.refs).toEqual([
      { key: 'project:linear:project-q3', relation: 'in_project', confidence: 1 },
      { key: 'pr:prettier/prettier#19686', relation: 'references', confidence: 0.8 },
    ]);
    expect(event.actors).toEqual([{ role: 'assignee', provider: 'linear', login: 'user-ana', name: 'Ana Souza', email: 'ana@acme.dev' }]);
  });

  it('turns a Comment create into a comment with a parent ref', () => {
    const event = normalizeLinearWebhook({
      action: 'create', type: 'Comment', url: 'https://linear.app/acme/issue/ENG-41/flaky#comment-1a2b3c4d',
      data: {
        id: 'comment-1', body: 'Only on the macOS runners.', createdAt: '2026-07-02T11:00:00.000Z', updatedAt: '2026-07-02T11:00:00.000Z',
        issueId: 'issue-41', issue: { id: 'issue-41', identifier: 'ENG-41', title: 'Flaky', url: 'https://linear.app/acme/issue/ENG-41', teamId: 'team-eng', team: { id: 'team-eng', key: 'ENG', name: 'Engineering' } },
        userId: 'user-chen', user: { id: 'user-chen', name: 'Chen Wei', email: 'chen@acme.dev', url: 'x' }, reactionData: {},
      },
    })!;
    expect(event).toMatchObject({ type: 'comment', externalId: 'linear:comment:comment-1', url: 'https://linear.app/acme/issue/ENG-41/flaky#comment-1a2b3c4d', container: 'ENG' });
    expect(event.refs).toEqual([{ key: 'linear:ENG-41', relation: 'parent', confidence: 1 }]);
    expect(event.actors[0]).toMatchObject({ role: 'commenter', email: 'chen@acme.dev' });
  });

  it('turns a Project create into a project document', () => {
    const event = normalizeLinearWebhook({
      action: 'create', type: 'Project', url: 'https://linear.app/acme/project/release-tooling-0a1b2c',
      data: {
        id: 'project-rt', name: 'Release tooling', description: 'Boring releases.', content: 'Checklist-driven.', slugId: '0a1b2c',
        createdAt: '2026-07-03T09:00:00.000Z', updatedAt: '2026-07-03T09:00:00.000Z', status: { id: 's', name: 'Planned', type: 'planned', color: '#ccc' },
        lead: { id: 'user-dora', name: 'Dora Lindqvist', email: 'dora@acme.dev', url: 'x' }, teamIds: ['team-eng'],
      },
    })!;
    expect(event).toMatchObject({ type: 'project', keys: ['project:linear:project-rt'], title: 'Release tooling', state: 'Planned', body: 'Boring releases.\n\nChecklist-driven.' });
  });

  it('ignores removals, other entity types and malformed payloads', () => {
    expect(normalizeLinearWebhook({ ...issuePayload, action: 'remove' })).toBeNull();
    expect(normalizeLinearWebhook({ ...issuePayload, type: 'Reaction' })).toBeNull();
    expect(normalizeLinearWebhook({ hello: 'world' })).toBeNull();
  });
});
