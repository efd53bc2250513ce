/** Discussions through GraphQL (REST has no repository-wide discussion list), newest change first. */
import { z } from 'zod';
import type { SourceEvent } from '@engram/contracts';
import type { ConnectorStream } from '../types.js';
import type { GitHubClient } from './client.js';
import { normalizeGitHubObject } from './normalize.js';
import type { RepoRef } from './pages.js';
import { atOrAfter } from './pages.js';

const DISCUSSION_FIELDS = `number title body url createdAt updatedAt closed closedAt answerChosenAt
  author { login } category { name } labels(first: 20) { nodes { name } }`;

export const DISCUSSIONS_QUERY = `query($owner: String!, $name: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    discussions(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes { ${DISCUSSION_FIELDS} }
    }
  }
}`;

export const DISCUSSION_QUERY = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { discussion(number: $number) { ${DISCUSSION_FIELDS} } }
}`;

const DiscussionNode = z.object({
  number: z.number().int(),
  title: z.string(),
  body: z.string().nullish(),
  url: z.string(),
  createdAt: z.string(),
  updatedAt: z.string().nullish(),
  closed: z.boolean().nullish(),
  closedAt: z.string().nullish(),
  answerChosenAt: z.string().nullish(),
  author: z.object({ login: z.string() }).nullish(),
  category: z.object({ name: z.string() }).nullish(),
  labels: z.object({ nodes: z.array(z.object({ name: z.string() }).nullable()) }).nullish(),
});
type DiscussionNode = z.infer<typeof DiscussionNode>;

const DiscussionsAnswer = z.object({
  repository: z.object({
    discussions: z.object({
      totalCount: z.number(),
      pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
      nodes: z.array(DiscussionNode.nullable()),
    }),
  }).nullable(),
});

const DiscussionCursor = z.object({ after: z.string(), since: z.string().optional() });

/** GraphQL node -> the REST / webhook discussion shape the normaliser reads. */
export function discussionNodeToRest(node: DiscussionNode): Record<string, unknown> {
  return {
    number: node.number,
    html_url: node.url,
    title: node.title,
    body: node.body ?? '',
    user: node.author ?? null,
    labels: (node.labels?.nodes ?? []).filter((l) => l !== null),
    category: node.category ?? null,
    state: node.closed ? 'closed' : 'open',
    created_at: node.createdAt,
    updated_at: node.updatedAt ?? null,
    closed_at: node.closedAt ?? null,
    answer_chosen_at: node.answerChosenAt ?? null,
  };
}

export function discussionStream(octokit: GitHubClient, where: RepoRef, repo: string, perPage: number): ConnectorStream {
  return {
    name: 'discussions',
    async fetchPage(cursor, options) {
      const c = cursor ? DiscussionCursor.parse(cursor) : null;
      const since = c ? c.since : options?.since;
      const raw = await octokit.graphql(DISCUSSIONS_QUERY, {
        owner: where.owner, name: where.repo, first: Math.min(perPage, 100), after: c?.after ?? null, request: { signal: options?.signal },
      });
      const page = DiscussionsAnswer.parse(raw).repository?.discussions;
      if (!page) return { events: [], next: null };
      const recent = atOrAfter(since);
      const nodes = page.nodes.filter((n): n is DiscussionNode => n !== null);
      const fresh = nodes.filter((n) => recent(n.updatedAt ?? n.createdAt));
      const events: SourceEvent[] = fresh.map((n) => normalizeGitHubObject(discussionNodeToRest(n), repo));
      const more = page.pageInfo.hasNextPage && page.pageInfo.endCursor !== null && fresh.length === nodes.length;
      return {
        events,
        next: more ? { after: page.pageInfo.endCursor as string, ...(since ? { since } : {}) } : null,
        ...(since ? {} : { totalHint: page.totalCount }),
      };
    },
  };
}

/** One discussion by number, or null when the repository has none with that number. */
export async function fetchDiscussion(octokit: GitHubClient, where: RepoRef, repo: string, number: number, signal?: AbortSignal): Promise<SourceEvent | null> {
  let raw: unknown;
  try {
    raw = await octokit.graphql(DISCUSSION_QUERY, { owner: where.owner, name: where.repo, number, request: { signal } });
  } catch (error) {
    const errors = (error as { errors?: { type?: string }[] }).errors;
    if (errors?.some((e) => e.type === 'NOT_FOUND')) return null;
    throw error;
  }
  const node = z.object({ repository: z.object({ discussion: DiscussionNode.nullable() }).nullable() }).parse(raw).repository?.discussion;
  return node ? normalizeGitHubObject(discussionNodeToRest(node), repo) : null;
}
