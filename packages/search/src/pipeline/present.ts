import type { SearchRequest, SearchResult } from '@engram/contracts';
import type { SearchReadModel } from '@engram/stores';
import type { ItemRow } from '../candidates.js';
import type { ActorContext, ClusterContext } from '../enrich.js';
import type { ContextReader } from './context.js';
import { focusSnippet, highlight, queryWordMatcher } from '../highlight.js';
import type { Scored } from './types.js';

export interface Presented {
  results: SearchResult[];
  context?: { clusters: ClusterContext[]; actors: ActorContext[] };
}

const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Stage 4, present: the requested page of the ranked list as results (snippet focused on the query's
 * terms, highlights, entities), and the context (clusters and people) when asked for.
 */
export async function present(
  reads: { read: SearchReadModel; context: ContextReader },
  request: Pick<SearchRequest, 'offset' | 'limit' | 'includeContext' | 'includeHighlights'>,
  ranked: readonly Scored[],
  rows: ReadonlyMap<string, ItemRow>,
  terms: readonly string[],
  context: { workspaceId: string; clusterIds: string[]; actorIds: string[] },
): Promise<Presented> {
  // An item deleted since it was pooled has no row: it drops out of the page.
  const page = ranked.slice(request.offset, request.offset + request.limit).filter((r) => rows.has(r.c.id));
  const pageIds = page.map((r) => r.c.id);
  const matches = queryWordMatcher(new Set(terms));
  const [entities, found] = await Promise.all([
    reads.read.itemEntities(context.workspaceId, pageIds),
    request.includeContext
      ? Promise.all([reads.context.clusters(context.workspaceId, pageIds, context.clusterIds), reads.context.actors(context.workspaceId, pageIds, context.actorIds)])
      : Promise.resolve(null),
  ]);
  const results = page.map(({ c, score }): SearchResult => {
    const snippet = focusSnippet(c.content, c.snippet, matches);
    const result: SearchResult = {
      id: c.id,
      title: c.title,
      url: rows.get(c.id)!.url,
      snippet,
      score: round(score),
      source: c.source,
      type: c.type,
      occurredAt: c.occurredAt,
      entities: entities.get(c.id) ?? [],
    };
    if (request.includeHighlights) result.highlights = { title: highlight(c.title, matches), snippet: highlight(snippet, matches) };
    return result;
  });
  return { results, ...(found ? { context: { clusters: found[0], actors: found[1] } } : {}) };
}
