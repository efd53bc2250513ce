import type { ActorRef, ActorRole, SourceEvent, SourceRef } from '@engram/contracts';
import type { LinearCommentNode, LinearIssueNode, LinearProjectNode, LinearUserNode } from './documents.js';

const GITHUB_URL = /https?:\/\/github\.com\/([\w.-]+)\/([\w.-]+)\/(pull|issues|commit)\/([0-9a-f]{7,40}|\d+)/gi;

/** Linking key for a GitHub pull request, issue or commit URL; `null` for anything else. */
export function githubKeyFromUrl(url: string): string | null {
  const m = new RegExp(GITHUB_URL.source, 'i').exec(url);
  if (!m) return null;
  const [, owner, repo, kind, id] = m as unknown as [string, string, string, string, string];
  const repoName = `${owner}/${repo.replace(/\.git$/, '')}`.toLowerCase();
  if (kind.toLowerCase() === 'commit') return /^[0-9a-f]{40}$/i.test(id) ? `commit:${id.toLowerCase()}` : null;
  if (!/^\d+$/.test(id)) return null;
  return `${kind.toLowerCase() === 'pull' ? 'pr' : 'issue'}:${repoName}#${id}`;
}

/** GitHub links written in free text: lower confidence than a structured attachment. */
function textRefs(text: string | null | undefined): SourceRef[] {
  if (!text) return [];
  return [...text.matchAll(GITHUB_URL)]
    .map((m) => githubKeyFromUrl(m[0]))
    .filter((key): key is string => key !== null)
    .map((key) => ({ key, relation: 'references' as const, confidence: 0.8 }));
}

/** One ref per key: a structured relation wins over a text mention of the same object. */
function dedupeRefs(refs: SourceRef[]): SourceRef[] {
  const byKey = new Map<string, SourceRef>();
  for (const ref of refs) {
    const seen = byKey.get(ref.key);
    if (!seen || seen.confidence < ref.confidence) byKey.set(ref.key, ref);
  }
  return [...byKey.values()];
}

const actor = (role: ActorRole, user: LinearUserNode | null | undefined): ActorRef[] =>
  user ? [{ role, provider: 'linear', login: user.id, name: user.name ?? user.displayName ?? undefined, email: user.email ?? undefined }] : [];

const teamOf = (identifier: string) => identifier.split('-')[0]!.toUpperCase();

export const linearIssueKey = (identifier: string) => `linear:${identifier.toUpperCase()}`;
export const linearProjectKey = (id: string) => `project:linear:${id}`;

export function normalizeLinearIssue(issue: LinearIssueNode): SourceEvent {
  const attachments = issue.attachments?.nodes ?? [];
  const refs: SourceRef[] = [
    ...(issue.project ? [{ key: linearProjectKey(issue.project.id), relation: 'in_project' as const, confidence: 1 }] : []),
    ...attachments.flatMap((a) => {
      const key = githubKeyFromUrl(a.url);
      return key ? [{ key, relation: 'attachment' as const, confidence: 1 }] : [];
    }),
    ...textRefs(issue.description),
  ];
  return {
    source: 'linear',
    type: 'issue',
    externalId: `linear:issue:${issue.id}`,
    url: issue.url,
    title: issue.title,
    body: issue.description ?? '',
    occurredAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    keys: [linearIssueKey(issue.identifier)],
    refs: dedupeRefs(refs),
    actors: [...actor('creator', issue.creator), ...actor('assignee', issue.assignee)],
    labels: (issue.labels?.nodes ?? []).map((l) => l.name).sort(),
    files: [],
    container: issue.team?.key ?? teamOf(issue.identifier),
    state: issue.state?.name,
    metadata: {
      identifier: issue.identifier,
      ...(issue.state?.type ? { stateType: issue.state.type } : {}),
      ...(issue.priorityLabel ? { priority: issue.priorityLabel } : {}),
      ...(issue.branchName ? { branchName: issue.branchName } : {}),
      ...(issue.project?.name ? { project: issue.project.name } : {}),
      ...(issue.completedAt ? { completedAt: issue.completedAt } : {}),
      ...(issue.canceledAt ? { canceledAt: issue.canceledAt } : {}),
      attachments: attachments.map((a) => ({ url: a.url, title: a.title ?? null, sourceType: a.sourceType ?? null })),
    },
  };
}

export function normalizeLinearComment(comment: LinearCommentNode): SourceEvent {
  const issue = comment.issue;
  return {
    source: 'linear',
    type: 'comment',
    externalId: `linear:comment:${comment.id}`,
    url: comment.url,
    title: null,
    body: comment.body,
    occurredAt: comment.createdAt,
    updatedAt: comment.updatedAt,
    keys: [],
    refs: dedupeRefs([
      ...(issue ? [{ key: linearIssueKey(issue.identifier), relation: 'parent' as const, confidence: 1 }] : []),
      ...textRefs(comment.body),
    ]),
    actors: actor('commenter', comment.user),
    labels: [],
    files: [],
    container: issue ? (issue.team?.key ?? teamOf(issue.identifier)) : undefined,
    metadata: issue ? { issueIdentifier: issue.identifier, issueId: issue.id } : {},
  };
}

export function normalizeLinearProject(project: LinearProjectNode): SourceEvent {
  const body = [project.description, project.content].filter((s): s is string => !!s && s.length > 0).join('\n\n');
  return {
    source: 'linear',
    type: 'project',
    externalId: `linear:project:${project.id}`,
    url: project.url,
    title: project.name,
    body,
    occurredAt: project.createdAt,
    updatedAt: project.updatedAt,
    keys: [linearProjectKey(project.id)],
    refs: dedupeRefs(textRefs(body)),
    // A project lead is the person accountable for it: the closest role the contract has is assignee.
    actors: [...actor('creator', project.creator), ...actor('assignee', project.lead)],
    labels: [],
    files: [],
    container: project.teams?.nodes[0]?.key,
    state: project.status?.name ?? project.state ?? undefined,
    metadata: {
      ...(project.slugId ? { slugId: project.slugId } : {}),
      ...(project.progress != null ? { progress: project.progress } : {}),
      ...(project.startedAt ? { startedAt: project.startedAt } : {}),
      ...(project.targetDate ? { targetDate: project.targetDate } : {}),
      ...(project.completedAt ? { completedAt: project.completedAt } : {}),
      teams: (project.teams?.nodes ?? []).map((t) => t.key),
    },
  };
}
