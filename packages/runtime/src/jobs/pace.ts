import type { Runtime } from '../runtime.js';

/**
 * Paced requests for a background job per workspace: requests within one window share a job id, and
 * the window is at least `minMs` and `factor` times the last run's duration in this process, so the job
 * takes at most 1/(factor + 1) of the time however large the workspace grows.
 */
export function pacer(minMs: number, factor: number) {
  const last = new Map<string, { ms: number; endedAt: number }>();
  const gap = (workspaceId: string): number => Math.max(minMs, factor * (last.get(workspaceId)?.ms ?? 0));
  return {
    /** The window a request made now falls in: its length (the delay before the job runs) and an id for it. */
    window(workspaceId: string): { ms: number; id: string } {
      const ms = gap(workspaceId);
      return { ms, id: `${ms}:${Math.floor(Date.now() / ms)}` };
    },
    /** How long from now until the pace allows the next run: `minMs`, and `factor` times the last run's duration, after its end. */
    untilDue(workspaceId: string): number {
      const run = last.get(workspaceId);
      return run ? Math.max(0, run.endedAt + gap(workspaceId) - Date.now()) : 0;
    },
    /** Records a run's duration (it ended now): what paces the next window. */
    ran(workspaceId: string, ms: number): void {
      last.set(workspaceId, { ms, endedAt: Date.now() });
    },
  };
}

/** Whether indexing is waiting or running: the passes and re-clusters that defer to it ask this. */
export async function isIndexing(runtime: Runtime): Promise<boolean> {
  const indexing = (await runtime.queue.depths())['index.event'];
  return indexing.waiting + indexing.active > 0;
}
