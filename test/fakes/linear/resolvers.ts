import { GraphQLError } from 'graphql';
import type { FakeLinearComment, FakeLinearData, FakeLinearIssue, FakeLinearProject, FakeLinearUser } from './fixture.js';
import { matchesFilter, paginate, type PageArgs } from './query.js';

type Filter = Record<string, unknown> | null | undefined;
type ListArgs = PageArgs & { filter?: Filter };

const PRIORITY_LABELS = ['No priority', 'Urgent', 'High', 'Medium', 'Low'];
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
const notFound = (entity: string) =>
  new GraphQLError(`Entity not found: ${entity}`, {
    extensions: { type: 'invalid input', code: 'INPUT_ERROR', userError: true, userPresentableMessage: `Could not find referenced ${entity}.` },
  });

/** Root value for `graphql()` over the live data (tests may mutate `data` between requests). */
export function linearRootValue(data: FakeLinearData) {
  const base = `https://linear.app/${data.workspace}`;
  const byId = <T extends { id: string }>(list: T[], id: string | null) => (id ? (list.find((x) => x.id === id) ?? null) : null);
  const team = (id: string) => byId(data.teams, id)!;
  const identifier = (i: FakeLinearIssue) => `${team(i.teamId).key}-${i.number}`;
  const issueUrl = (i: FakeLinearIssue) => `${base}/issue/${identifier(i)}/${slug(i.title)}`;
  const user = (id: string | null) => {
    const u = byId(data.users, id);
    return u && { ...u, active: true, url: `${base}/profiles/${u.displayName}` };
  };

  // Plain views that filters are evaluated against.
  const issueView = (i: FakeLinearIssue) => ({
    ...i, team: team(i.teamId), state: byId(data.states, i.stateId), assignee: byId(data.users, i.assigneeId),
    creator: byId(data.users, i.creatorId), project: byId(data.projects, i.projectId),
    labels: i.labelIds.map((l) => byId(data.labels, l)),
  });
  const commentView = (c: FakeLinearComment) => {
    const issue = byId(data.issues, c.issueId);
    return { ...c, user: byId(data.users, c.userId), issue: issue && issueView(issue) };
  };
  const projectView = (p: FakeLinearProject) => ({ ...p, accessibleTeams: p.teamIds.map(team) });

  // GraphQL objects: connection fields are functions of their arguments.
  const issueNode = (i: FakeLinearIssue): Record<string, unknown> => ({
    ...i, identifier: identifier(i), url: issueUrl(i), archivedAt: null,
    branchName: `${byId(data.users, i.assigneeId)?.displayName ?? 'unassigned'}/${identifier(i).toLowerCase()}-${slug(i.title)}`,
    priorityLabel: PRIORITY_LABELS[i.priority] ?? 'No priority',
    team: team(i.teamId), state: byId(data.states, i.stateId), assignee: user(i.assigneeId), creator: user(i.creatorId),
    project: (() => { const p = byId(data.projects, i.projectId); return p && projectNode(p); })(),
    labels: (args: PageArgs) => paginate(i.labelIds.map((l) => ({ ...byId(data.labels, l)!, createdAt: i.createdAt, updatedAt: i.createdAt })), args, (l) => l),
    attachments: (args: PageArgs) => paginate(data.attachments.filter((a) => a.issueId === i.id), args, (a) => ({ ...a, metadata: {} })),
    comments: (args: PageArgs) => paginate(data.comments.filter((c) => c.issueId === i.id), args, commentNode),
  });
  const commentNode = (c: FakeLinearComment): Record<string, unknown> => {
    const issue = byId(data.issues, c.issueId);
    return {
      ...c, editedAt: c.updatedAt === c.createdAt ? null : c.updatedAt, user: user(c.userId), parent: null,
      url: issue ? `${issueUrl(issue)}#comment-${c.id.slice(0, 8)}` : `${base}/comment/${c.id}`,
      issue: issue && issueNode(issue),
    };
  };
  const projectNode = (p: FakeLinearProject): Record<string, unknown> => ({
    ...p, url: `${base}/project/${slug(p.name)}-${p.slugId}`,
    status: { id: `status-${p.statusType}`, name: p.statusName, type: p.statusType },
    lead: user(p.leadId), creator: user(p.creatorId),
    teams: (args: PageArgs) => paginate(p.teamIds.map((t) => ({ ...team(t), createdAt: p.createdAt, updatedAt: p.createdAt })), args, (t) => t),
  });

  const findIssue = (id: string) =>
    data.issues.find((i) => i.id === id || identifier(i).toLowerCase() === id.toLowerCase()) ?? null;

  return {
    issue: ({ id }: { id: string }) => { const i = findIssue(id); if (!i) throw notFound('Issue'); return issueNode(i); },
    issues: (args: ListArgs) => paginate(data.issues.filter((i) => matchesFilter(issueView(i), args.filter)), args, issueNode),
    searchIssues: (args: ListArgs & { term: string }) => {
      const words = args.term.toLowerCase().split(/\s+/).filter(Boolean);
      const hits = data.issues.filter((i) => {
        const text = `${identifier(i)} ${i.title} ${i.description ?? ''}`.toLowerCase();
        return words.every((w) => text.includes(w)) && matchesFilter(issueView(i), args.filter);
      });
      const result = paginate(hits, args, (i) => ({ ...issueNode(i), metadata: {} }));
      return { nodes: result.nodes, pageInfo: result.pageInfo, totalCount: hits.length };
    },
    comments: (args: ListArgs) => paginate(data.comments.filter((c) => matchesFilter(commentView(c), args.filter)), args, commentNode),
    project: ({ id }: { id: string }) => {
      const p = data.projects.find((x) => x.id === id || x.slugId === id);
      if (!p) throw notFound('Project');
      return projectNode(p);
    },
    projects: (args: ListArgs) => paginate(data.projects.filter((p) => matchesFilter(projectView(p), args.filter)), args, projectNode),
    teams: (args: ListArgs) => paginate(data.teams.filter((t) => matchesFilter(t, args.filter)).map((t) => ({ ...t, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' })), args, (t) => t),
    users: (args: PageArgs) => paginate(data.users.map((u: FakeLinearUser) => ({ ...u, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' })), args, (u) => user(u.id)),
  };
}
