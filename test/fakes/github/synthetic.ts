/**
 * Issues, issue comments and discussions for the fake (the prettier export has none). Deterministic:
 * item i of n is created `i` hours after `start` and updated `(i * 7) % n` hours after its creation,
 * so update order differs from creation order as it does in a real tracker.
 */
import type { FakeDiscussion, FakeIssue, FakeIssueComment } from './model.js';

const HOUR = 3_600_000;
const at = (start: string, hours: number) => new Date(Date.parse(start) + hours * HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z');
const LOGINS = ['fisker', 'sosukesuzuki', 'thorn0', 'alexander-akait', 'seiyab'];

export function syntheticIssues(count: number, opts: { firstNumber: number; start?: string }): FakeIssue[] {
  const start = opts.start ?? '2025-01-01T00:00:00Z';
  return Array.from({ length: count }, (_, i) => {
    const closed = i % 3 === 0;
    return {
      type: 'issue' as const,
      number: opts.firstNumber + i,
      title: `Formatting of case ${i} changes on every run`,
      body: `Input ${i} formats differently the second time.\n\nExpected stable output.`,
      user: { login: LOGINS[i % LOGINS.length] as string },
      labels: [{ name: i % 2 ? 'type:bug' : 'lang:css' }],
      assignees: i % 4 === 0 ? [{ login: 'fisker' }] : [],
      state: closed ? ('closed' as const) : ('open' as const),
      created_at: at(start, i),
      updated_at: at(start, i + ((i * 7) % count) + 1),
      closed_at: closed ? at(start, i + ((i * 7) % count) + 1) : null,
    };
  });
}

/** `perParent` comments on each of `parents` (issue or pull request numbers). */
export function syntheticComments(parents: readonly number[], perParent: number, opts: { firstId: number; start?: string }): FakeIssueComment[] {
  const start = opts.start ?? '2025-02-01T00:00:00Z';
  return parents.flatMap((parent, p) => Array.from({ length: perParent }, (_, k) => {
    const i = p * perParent + k;
    return {
      type: 'issue_comment' as const,
      id: opts.firstId + i,
      issue_number: parent,
      body: `Comment ${k} on #${parent}: I can reproduce this.`,
      user: { login: LOGINS[i % LOGINS.length] as string },
      created_at: at(start, i),
      updated_at: at(start, i + (i % 5)),
    };
  }));
}

export function syntheticDiscussions(count: number, opts: { firstNumber: number; start?: string }): FakeDiscussion[] {
  const start = opts.start ?? '2025-03-01T00:00:00Z';
  return Array.from({ length: count }, (_, i) => ({
    type: 'discussion' as const,
    number: opts.firstNumber + i,
    title: `Should option ${i} be deprecated?`,
    body: `Proposal ${i}: remove the option in the next major.`,
    user: { login: LOGINS[(i + 2) % LOGINS.length] as string },
    category: { name: i % 2 ? 'Ideas' : 'Q&A' },
    labels: i % 3 === 0 ? [{ name: 'proposal' }] : [],
    closed: i % 4 === 0,
    closed_at: i % 4 === 0 ? at(start, i + 2) : null,
    answer_chosen_at: i % 5 === 0 ? at(start, i + 1) : null,
    created_at: at(start, i),
    updated_at: at(start, i + ((i * 3) % count) + 1),
  }));
}
