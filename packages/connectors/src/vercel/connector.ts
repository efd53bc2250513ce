import { z } from 'zod';
import type { SourceEvent } from '@engram/contracts';
import type { Connector, ConnectorStream, FetchPageOptions, StreamCursor, SyncObserver, SyncPage } from '../types.js';
import { vercelActions } from './actions.js';
import { createVercelClient, expectOk, type VercelClient, type VercelRetryPolicy } from './client.js';
import { normalizeVercelBuildLog, normalizeVercelDeployment, VercelDeployment, VercelEvents } from './normalize.js';

export interface VercelConnectorOptions {
  token: string;
  projectId: string;
  teamId?: string;
  /** Defaults to https://api.vercel.com. */
  baseUrl?: string;
  observer?: SyncObserver;
  /** Deployments per page (Vercel allows up to 100). The build_logs stream fetches one log per deployment. */
  pageSize?: number;
  retry?: VercelRetryPolicy;
}

/**
 * `until`: `pagination.next` of the previous page (deployments created strictly before it);
 * `since`: lower bound in epoch ms (created strictly after it), fixed when the walk began.
 */
const VercelCursor = z.object({ until: z.number().optional(), since: z.number().optional() });

const DeploymentList = z.object({
  deployments: z.array(VercelDeployment),
  pagination: z.object({ count: z.number().optional(), next: z.number().nullish() }).optional(),
});

/** Logs of deployments still queued or building are incomplete: the log is emitted once the build ends. */
const FINISHED = new Set(['READY', 'ERROR', 'CANCELED']);

export const VERCEL_STREAMS = ['deployments', 'build_logs'] as const;

export function createVercelConnector(options: VercelConnectorOptions): Connector {
  const client: VercelClient = createVercelClient(options);
  const pageSize = options.pageSize ?? 20;

  const listPage = async (cursor: StreamCursor | null, fetchOptions: FetchPageOptions, limit: number) => {
    const position = VercelCursor.parse(cursor ?? {});
    // `since` is inclusive for callers and exclusive for Vercel.
    const since = position.since ?? (fetchOptions.since ? Date.parse(fetchOptions.since) - 1 : undefined);
    const response = await client.get('/v6/deployments', { projectId: options.projectId, limit, until: position.until, since }, fetchOptions.signal);
    const page = DeploymentList.parse(expectOk(response));
    const nextUntil = page.pagination?.next;
    const next = nextUntil != null && page.deployments.length > 0 ? { until: nextUntil, ...(since !== undefined ? { since } : {}) } : null;
    return { deployments: page.deployments, next };
  };

  const events = async (uid: string, signal?: AbortSignal) =>
    VercelEvents.parse(expectOk(await client.get(`/v3/deployments/${encodeURIComponent(uid)}/events`, { builds: 1, direction: 'forward', limit: -1 }, signal)));

  const deploymentsStream: ConnectorStream = {
    name: 'deployments',
    async fetchPage(cursor, fetchOptions = {}): Promise<SyncPage> {
      const { deployments, next } = await listPage(cursor, fetchOptions, pageSize);
      return { events: deployments.map(normalizeVercelDeployment), next };
    },
  };

  // A separate stream (not a side effect of `deployments`) so logs can be synced, checkpointed and
  // skipped on their own; it walks the same list and fetches one log per finished deployment.
  const buildLogsStream: ConnectorStream = {
    name: 'build_logs',
    async fetchPage(cursor, fetchOptions = {}): Promise<SyncPage> {
      const { deployments, next } = await listPage(cursor, fetchOptions, Math.min(pageSize, 20));
      const logs: SourceEvent[] = [];
      for (const d of deployments) {
        if (!FINISHED.has(d.state)) continue;
        const lines = await events(d.uid, fetchOptions.signal);
        if (lines.length > 0) logs.push(normalizeVercelBuildLog(d, lines));
      }
      return { events: logs, next };
    },
  };

  /** `https://<deployment>.vercel.app/...` or the inspector URL `https://vercel.com/<team>/<project>/<id>`. */
  const deploymentRef = (url: string): string | null => {
    let parsed: URL;
    try { parsed = new URL(url); } catch { return null; }
    if (parsed.hostname.endsWith('.vercel.app')) return parsed.hostname;
    const inspector = /^\/[\w.-]+\/[\w.-]+\/([A-Za-z0-9]+)\/?$/.exec(parsed.pathname);
    return parsed.hostname === 'vercel.com' && inspector ? `dpl_${inspector[1]}` : null;
  };

  return {
    provider: 'vercel',
    streams: () => [deploymentsStream, buildLogsStream],
    async fetchByUrl(url, signal) {
      const ref = deploymentRef(url);
      if (!ref) return null;
      const response = await client.get(`/v13/deployments/${encodeURIComponent(ref)}`, {}, signal);
      if (response.status === 404) return null;
      const deployment = VercelDeployment.parse(expectOk(response));
      if (deployment.projectId && deployment.projectId !== options.projectId) return null;
      return normalizeVercelDeployment(deployment);
    },
    resources: () => [{
      name: options.projectId,
      params: { projectId: options.projectId, ...(options.teamId ? { teamId: options.teamId } : {}) },
      syncing: [...VERCEL_STREAMS],
    }],
    actions: () => vercelActions(client, { projectId: options.projectId }),
  };
}
