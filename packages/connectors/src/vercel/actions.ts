import { z } from 'zod';
import type { ProxyAction } from '../types.js';
import type { VercelClient } from './client.js';

const action = <P extends z.ZodObject>(spec: ProxyAction<P>): ProxyAction => spec as unknown as ProxyAction;
const idOrUrl = z.string().min(1).describe('Deployment id (dpl_...) or deployment hostname (<name>-<hash>.vercel.app)');
const path = (id: string) => encodeURIComponent(id.replace(/^https?:\/\//, '').replace(/\/.*$/, ''));

/** Proxy actions over Vercel's REST API; each answer is Vercel's own status, body and rate-limit headers. */
export function vercelActions(client: VercelClient, defaults: { projectId: string }): ProxyAction[] {
  return [
    action({
      action: 'vercel.list-deployments',
      description: 'List deployments of the project, newest first, with state, target, commit and branch; page with `until` = pagination.next.',
      params: z.object({
        projectId: z.string().min(1).optional().describe('Project id (defaults to the connection project)'),
        limit: z.number().int().min(1).max(100).default(20).describe('Page size, 1-100'),
        until: z.number().int().optional().describe('Only deployments created before this epoch-ms timestamp'),
        since: z.number().int().optional().describe('Only deployments created after this epoch-ms timestamp'),
        target: z.enum(['production', 'preview']).optional().describe('Environment'),
        state: z.string().regex(/^[A-Z_,]+$/).optional().describe('Comma-separated states: READY,ERROR,CANCELED,BUILDING,QUEUED'),
      }),
      run: (p, signal) => client.get('/v6/deployments', { ...p, projectId: p.projectId ?? defaults.projectId }, signal),
    }),
    action({
      action: 'vercel.get-deployment',
      description: 'Get one deployment by id or URL: state, target, aliases, Git source, creator and error message if it failed.',
      params: z.object({ idOrUrl }),
      run: (p, signal) => client.get(`/v13/deployments/${path(p.idOrUrl)}`, {}, signal),
    }),
    action({
      action: 'vercel.get-deployment-events',
      description: 'Get the build log lines (stdout, stderr, commands) of a deployment, oldest first unless direction is backward.',
      params: z.object({
        idOrUrl,
        limit: z.number().int().min(1).max(5000).optional().describe('Most lines to return (all when omitted)'),
        direction: z.enum(['forward', 'backward']).default('forward').describe('backward returns the newest lines first'),
      }),
      run: (p, signal) =>
        client.get(`/v3/deployments/${path(p.idOrUrl)}/events`, { builds: 1, direction: p.direction, limit: p.limit ?? -1 }, signal),
    }),
  ];
}
