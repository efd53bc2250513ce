import { z } from 'zod';
import type { ActorRef, SourceEvent, SourceRef } from '@engram/contracts';

/** A deployment from `/v6/deployments` (uid, state, created) or `/v13/deployments/:id` (id, readyState, createdAt). */
export const VercelDeployment = z
  .object({
    uid: z.string().optional(),
    id: z.string().optional(),
    name: z.string(),
    url: z.string(),
    created: z.number().optional(),
    createdAt: z.number().optional(),
    buildingAt: z.number().nullish(),
    ready: z.number().nullish(),
    state: z.string().optional(),
    readyState: z.string().optional(),
    target: z.string().nullish(),
    projectId: z.string().optional(),
    inspectorUrl: z.string().nullish(),
    creator: z.object({ uid: z.string().optional(), username: z.string().optional(), email: z.string().optional() }).nullish(),
    meta: z.record(z.string(), z.string()).nullish(),
    errorMessage: z.string().nullish(),
  })
  .transform((d, ctx) => {
    const uid = d.uid ?? d.id;
    const created = d.created ?? d.createdAt;
    if (!uid || created === undefined) {
      ctx.addIssue({ code: 'custom', message: 'deployment needs an id and a creation time' });
      return z.NEVER;
    }
    return { ...d, uid, created, state: d.state ?? d.readyState ?? 'UNKNOWN', meta: d.meta ?? {} };
  });
export type VercelDeployment = z.output<typeof VercelDeployment>;

export const VercelEvents = z.array(
  z.object({
    type: z.string(),
    created: z.number(),
    text: z.string().optional(),
    payload: z.object({ text: z.string().optional(), date: z.number().optional() }).partial().optional(),
  }),
);
export type VercelEvents = z.infer<typeof VercelEvents>;

const iso = (ms: number) => new Date(ms).toISOString();

/** `owner/name` of the Git repository a deployment was built from, lower-cased, from Vercel's `meta`. */
export function repoOf(meta: Record<string, string>): string | undefined {
  const name = meta.githubCommitRepo ?? meta.githubRepo;
  if (!name) return undefined;
  if (name.includes('/')) return name.toLowerCase();
  const owner = meta.githubCommitOrg ?? meta.githubOrg ?? meta.githubCommitRepoOwner;
  return owner ? `${owner}/${name}`.toLowerCase() : undefined;
}

const commitRefs = (meta: Record<string, string>): SourceRef[] => {
  const sha = meta.githubCommitSha;
  return sha && /^[0-9a-f]{40}$/i.test(sha) ? [{ key: `commit:${sha.toLowerCase()}`, relation: 'built_from', confidence: 1 }] : [];
};

function refsOf(d: VercelDeployment): SourceRef[] {
  const repo = repoOf(d.meta);
  const branch = d.meta.githubCommitRef;
  return [...commitRefs(d.meta), ...(repo && branch ? [{ key: `branch:${repo}:${branch}`, relation: 'on_branch' as const, confidence: 1 }] : [])];
}

function actorsOf(d: VercelDeployment): ActorRef[] {
  const actors: ActorRef[] = [];
  if (d.creator?.username) actors.push({ role: 'creator', provider: 'vercel', login: d.creator.username, ...(d.creator.email ? { email: d.creator.email } : {}) });
  const author = d.meta.githubCommitAuthorLogin;
  if (author) actors.push({ role: 'author', provider: 'github', login: author, ...(d.meta.githubCommitAuthorName ? { name: d.meta.githubCommitAuthorName } : {}) });
  return actors;
}

const environment = (d: VercelDeployment) => (d.target === 'production' ? 'production' : 'preview');

export function normalizeVercelDeployment(d: VercelDeployment): SourceEvent {
  const branch = d.meta.githubCommitRef;
  const message = d.meta.githubCommitMessage ?? '';
  const body = [message, `State: ${d.state}`, d.errorMessage ? `Error: ${d.errorMessage}` : ''].filter(Boolean).join('\n\n');
  return {
    source: 'vercel',
    type: 'deployment',
    externalId: `vercel:deployment:${d.uid}`,
    url: `https://${d.url}`,
    title: `${environment(d) === 'production' ? 'Production' : 'Preview'} deployment of ${branch ?? d.url} (${d.state})`,
    body,
    occurredAt: iso(d.created),
    updatedAt: iso(Math.max(d.created, d.buildingAt ?? 0, d.ready ?? 0)),
    keys: [`deployment:${d.uid}`],
    refs: refsOf(d),
    actors: actorsOf(d),
    labels: [environment(d)],
    files: [],
    container: d.name,
    state: d.state,
    metadata: {
      target: environment(d),
      ...(d.projectId ? { projectId: d.projectId } : {}),
      ...(d.inspectorUrl ? { inspectorUrl: d.inspectorUrl } : {}),
      ...(branch ? { branch } : {}),
      ...(d.meta.githubCommitSha ? { commitSha: d.meta.githubCommitSha.toLowerCase() } : {}),
      ...(repoOf(d.meta) ? { repo: repoOf(d.meta) } : {}),
      ...(d.errorMessage ? { errorMessage: d.errorMessage } : {}),
    },
  };
}

/** Longest build log kept: the head (setup) and the tail (where failures are) survive truncation. */
export const MAX_LOG_CHARS = 60_000;

export function buildLogText(events: VercelEvents): string {
  const text = events
    .filter((e) => e.type === 'stdout' || e.type === 'stderr' || e.type === 'command')
    .map((e) => e.payload?.text ?? e.text ?? '')
    .join('\n');
  if (text.length <= MAX_LOG_CHARS) return text;
  const head = text.slice(0, 5_000);
  const tail = text.slice(-(MAX_LOG_CHARS - 5_000));
  return `${head}\n… [${text.length - head.length - tail.length} characters omitted] …\n${tail}`;
}

/** The build log of one deployment as its own event, linked to the deployment and the commit it built. */
export function normalizeVercelBuildLog(d: VercelDeployment, events: VercelEvents): SourceEvent {
  const last = events.reduce((max, e) => Math.max(max, e.created), d.created);
  return {
    source: 'vercel',
    type: 'build_log',
    externalId: `vercel:build_log:${d.uid}`,
    url: d.inspectorUrl ?? `https://${d.url}`,
    title: `Build log of ${environment(d)} deployment of ${d.meta.githubCommitRef ?? d.url} (${d.state})`,
    body: buildLogText(events),
    occurredAt: iso(d.buildingAt ?? d.created),
    updatedAt: iso(last),
    keys: [],
    refs: [{ key: `deployment:${d.uid}`, relation: 'parent', confidence: 1 }, ...commitRefs(d.meta)],
    actors: [],
    labels: [environment(d)],
    files: [],
    container: d.name,
    state: d.state,
    metadata: { lines: events.length, deploymentUrl: `https://${d.url}`, ...(d.errorMessage ? { errorMessage: d.errorMessage } : {}) },
  };
}
