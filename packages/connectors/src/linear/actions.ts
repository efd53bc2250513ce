import { z } from 'zod';
import type { ProxyAction, ProxyResult } from '../types.js';
import {
  ISSUE_QUERY, ISSUES_QUERY, IssueResponse, IssuesResponse, PROJECTS_QUERY, ProjectsResponse, SEARCH_ISSUES_QUERY, SearchIssuesResponse,
} from './documents.js';
import { loadedLinearSdk } from './sdk.js';
import { safeHeaders, type LinearResult, type LinearTransport } from './transport.js';

const first = z.number().int().min(1).max(100).default(25).describe('Page size, 1-100');
const after = z.string().min(1).optional().describe('pageInfo.endCursor of the previous page');
const teamKey = z.string().min(1).optional().describe('Team key such as ENG (defaults to the connection team)');

/** Runs a provider call and turns a Linear error into a status the caller can act on. */
async function proxied(call: () => Promise<LinearResult<unknown>>): Promise<ProxyResult> {
  try {
    const { data, headers } = await call();
    return { status: 200, data, headers };
  } catch (error) {
    const sdk = loadedLinearSdk();
    if (!sdk || !(error instanceof sdk.LinearError)) throw error;
    const notFound = /entity not found/i.test(error.message);
    const status = notFound ? 404 : error.status && error.status >= 400 ? error.status : 502;
    return { status, data: { error: { type: error.type, message: error.message } }, headers: safeHeaders(error.raw?.response?.headers) };
  }
}

const action = <P extends z.ZodObject>(spec: ProxyAction<P>): ProxyAction => spec as unknown as ProxyAction;

export function linearActions(transport: LinearTransport, defaults: { teamKey?: string }): ProxyAction[] {
  const teamFilter = (key: string | undefined) => {
    const team = key ?? defaults.teamKey;
    return team ? { team: { key: { eq: team.toUpperCase() } } } : {};
  };
  return [
    action({
      action: 'linear.get-issue',
      description: 'Get one Linear issue by UUID or identifier (ENG-123), with state, assignee, labels, project and attachments.',
      params: z.object({ id: z.string().min(1).describe('Issue UUID or identifier such as ENG-123') }),
      run: (p, signal) => proxied(() => transport.request(ISSUE_QUERY, { id: p.id }, IssueResponse, signal)),
    }),
    action({
      action: 'linear.list-issues',
      description: 'List Linear issues, oldest first, optionally filtered by team, state name, assignee email, label or update time.',
      params: z.object({
        teamKey,
        state: z.string().min(1).optional().describe('Workflow state name, e.g. "In Progress"'),
        assigneeEmail: z.string().min(1).optional().describe('Assignee email'),
        label: z.string().min(1).optional().describe('Label name'),
        updatedSince: z.string().datetime({ offset: true }).optional().describe('Only issues updated at or after this ISO time'),
        first,
        after,
      }),
      run: (p, signal) => {
        const filter = {
          ...teamFilter(p.teamKey),
          ...(p.state ? { state: { name: { eqIgnoreCase: p.state } } } : {}),
          ...(p.assigneeEmail ? { assignee: { email: { eqIgnoreCase: p.assigneeEmail } } } : {}),
          ...(p.label ? { labels: { some: { name: { eqIgnoreCase: p.label } } } } : {}),
          ...(p.updatedSince ? { updatedAt: { gte: p.updatedSince } } : {}),
        };
        return proxied(() => transport.request(ISSUES_QUERY, { first: p.first, after: p.after ?? null, filter }, IssuesResponse, signal));
      },
    }),
    action({
      action: 'linear.search-issues',
      description: 'Full-text search over Linear issue identifiers, titles and descriptions.',
      params: z.object({ query: z.string().min(1).describe('Search terms'), teamKey, first, after }),
      run: (p, signal) =>
        proxied(() => transport.request(
          SEARCH_ISSUES_QUERY, { term: p.query, first: p.first, after: p.after ?? null, filter: teamFilter(p.teamKey) }, SearchIssuesResponse, signal,
        )),
    }),
    action({
      action: 'linear.list-projects',
      description: 'List Linear projects (name, status, lead, description, target date), oldest first.',
      params: z.object({ teamKey, first, after }),
      run: (p, signal) => {
        const team = p.teamKey ?? defaults.teamKey;
        const filter = team ? { accessibleTeams: { some: { key: { eq: team.toUpperCase() } } } } : {};
        return proxied(() => transport.request(PROJECTS_QUERY, { first: p.first, after: p.after ?? null, filter }, ProjectsResponse, signal));
      },
    }),
  ];
}
