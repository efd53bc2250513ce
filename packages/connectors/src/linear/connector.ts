import type { LinearClient } from '@linear/sdk';
import { z } from 'zod';
import type { SourceEvent } from '@engram/contracts';
import type { Connector, ConnectorStream, FetchPageOptions, StreamCursor, SyncObserver, SyncPage } from '../types.js';
import { linearActions } from './actions.js';
import {
  COMMENTS_QUERY, CommentsResponse, ISSUE_QUERY, ISSUES_QUERY, IssueResponse, IssuesResponse, PROJECTS_QUERY, ProjectsResponse,
} from './documents.js';
import { normalizeLinearComment, normalizeLinearIssue, normalizeLinearProject } from './normalize.js';
import { linearSdk } from './sdk.js';
import { createLinearTransport, type LinearRetryPolicy } from './transport.js';

export interface LinearConnectorOptions {
  /** Personal API key (sent as-is) or OAuth access token via `accessToken`. */
  apiKey?: string;
  accessToken?: string;
  /** GraphQL endpoint; defaults to https://api.linear.app/graphql. */
  apiUrl?: string;
  /** Restrict sync and proxy calls to one team, e.g. `ENG`. */
  teamKey?: string;
  observer?: SyncObserver;
  /** Objects per page (Linear allows up to 250; nested selections count towards query complexity). */
  pageSize?: number;
  retry?: LinearRetryPolicy;
}

/** `after`: Linear's endCursor of the previous page; `since`: the updatedAt lower bound fixed when the walk began. */
const LinearCursor = z.object({ after: z.string().optional(), since: z.string().optional() });

const ISSUE_URL = /^https:\/\/linear\.app\/[\w-]+\/issue\/([A-Za-z][A-Za-z0-9]*-\d+)(?:[/?#]|$)/;

export const LINEAR_STREAMS = ['issues', 'comments', 'projects'] as const;

export function createLinearConnector(options: LinearConnectorOptions): Connector {
  let client: Promise<LinearClient> | undefined;
  const clientOnce = (): Promise<LinearClient> =>
    (client ??= linearSdk().then(({ LinearClient }) => new LinearClient({ apiKey: options.apiKey, accessToken: options.accessToken, apiUrl: options.apiUrl })));
  const transport = createLinearTransport(clientOnce, options.observer, options.retry);
  const pageSize = options.pageSize ?? 50;
  const teamKey = options.teamKey?.toUpperCase();

  const teamFilter = (path: 'issue' | 'comment' | 'project'): Record<string, unknown> => {
    if (!teamKey) return {};
    const team = { key: { eq: teamKey } };
    if (path === 'issue') return { team };
    if (path === 'comment') return { issue: { team } };
    return { accessibleTeams: { some: team } };
  };

  const stream = <T>(
    name: string,
    kind: 'issue' | 'comment' | 'project',
    query: string,
    read: (data: T) => { nodes: unknown[]; pageInfo: { hasNextPage: boolean; endCursor?: string | null } },
    schema: z.ZodType<T>,
    normalize: (node: never) => SourceEvent,
  ): ConnectorStream => ({
    name,
    async fetchPage(cursor: StreamCursor | null, fetchOptions: FetchPageOptions = {}): Promise<SyncPage> {
      const position = LinearCursor.parse(cursor ?? {});
      const since = position.since ?? fetchOptions.since;
      const filter = { ...teamFilter(kind), ...(since ? { updatedAt: { gte: since } } : {}) };
      const variables = { first: pageSize, after: position.after ?? null, filter };
      const { data } = await transport.request(query, variables, schema, fetchOptions.signal);
      const { nodes, pageInfo } = read(data);
      const next = pageInfo.hasNextPage && pageInfo.endCursor ? { after: pageInfo.endCursor, ...(since ? { since } : {}) } : null;
      return { events: nodes.map((n) => normalize(n as never)), next };
    },
  });

  const fetchIssue = async (id: string, signal?: AbortSignal): Promise<SourceEvent | null> => {
    try {
      const { data } = await transport.request(ISSUE_QUERY, { id }, IssueResponse, signal);
      return normalizeLinearIssue(data.issue);
    } catch (error) {
      if (/entity not found/i.test((error as Error).message)) return null;
      throw error;
    }
  };

  return {
    provider: 'linear',
    streams: () => [
      stream('issues', 'issue', ISSUES_QUERY, (d) => d.issues, IssuesResponse, normalizeLinearIssue),
      stream('comments', 'comment', COMMENTS_QUERY, (d) => d.comments, CommentsResponse, normalizeLinearComment),
      stream('projects', 'project', PROJECTS_QUERY, (d) => d.projects, ProjectsResponse, normalizeLinearProject),
    ],
    async fetchByUrl(url, signal) {
      const identifier = ISSUE_URL.exec(url)?.[1]?.toUpperCase();
      if (!identifier) return null;
      if (teamKey && !identifier.startsWith(`${teamKey}-`)) return null;
      return fetchIssue(identifier, signal);
    },
    resources: () => [{ name: teamKey ?? 'linear', params: teamKey ? { teamKey } : ({} as Record<string, string>), syncing: [...LINEAR_STREAMS] }],
    actions: () => linearActions(transport, { teamKey }),
  };
}
