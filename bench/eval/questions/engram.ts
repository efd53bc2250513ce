/**
 * `POST /v1/search` with `includeContext: true`, as a system the harness can score, keeping the
 * `relevantActors` of each question's top-10 call for the people score.
 */
import { datasetIdFromUrl } from '../dataset.js';
import type { SearchSystem } from '../run.js';
import type { WorkspaceAccess } from '../service.js';

interface SearchBody {
  data: { url: string }[];
  latency?: { total?: number };
  context?: { relevantActors?: { displayName: string }[] };
}

export interface ContextSearch {
  search: SearchSystem;
  /** Display names of `context.relevantActors` from the limit-10 call of a question, in order. */
  actorsOf(question: string): string[] | undefined;
}

/** Answers that say "not now" (timeout, overload) rather than "no". */
const RETRIABLE_STATUS: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

/**
 * A request whose connection failed, or that the server answered with a timeout or overload status, is
 * sent again (4 tries, 2, 10 and 30 s apart): on a loaded machine a busy server should not end a
 * 20-minute run. Any other HTTP error is final.
 */
async function withRetries(send: () => Promise<Response>, delaysMs: readonly number[] = [2_000, 10_000, 30_000]): Promise<Response> {
  for (const delay of delaysMs) {
    const response = await send().catch(() => null);
    if (response && !RETRIABLE_STATUS.has(response.status)) return response;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  return send();
}

export function searchWithContext(access: WorkspaceAccess, mode: string): ContextSearch {
  const actors = new Map<string, string[]>();
  const search: SearchSystem = async (query, limit) => {
    const response = await withRetries(() =>
      fetch(`${access.url}/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${access.key}`, 'x-workspace-id': access.workspaceId },
        body: JSON.stringify({ query, limit, mode, includeContext: true }),
      }),
    );
    if (!response.ok) throw new Error(`POST /v1/search answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as SearchBody;
    if (limit === 10) actors.set(query, (body.context?.relevantActors ?? []).map((a) => a.displayName));
    return { ids: body.data.flatMap((item) => datasetIdFromUrl(item.url) ?? []), reportedMs: body.latency?.total };
  };
  return { search, actorsOf: (question) => actors.get(question) };
}
