/**
 * Response shapes. `/v1` answers Shape A (flat, `requestId` on top); `/api/v1` answers Shape B (the alpha
 * reference, wrapped in `data`) for search, contents and findsimilar. Mappers copy only documented
 * fields, so engine-internal fields never leak.
 */
import type { Request } from 'express';
import type { z } from 'zod';
import type { ContentItem, ContentsResponseA, FindSimilarResponseA, SearchMode, SearchRequest, SearchResponseA, SearchResponseB, SearchResult, SearchScoreKind } from '@engram/contracts';
import type { FindSimilarOutcome, SearchAnswer } from '@engram/search';

export type Shape = 'A' | 'B';

export const shapeOf = (req: Request): Shape => (req.baseUrl.startsWith('/api/') ? 'B' : 'A');

/** What `score` means, by the mode that ran (docs/api.md, "What a search score means"). Shape B has no meta to say it. */
const SCORE_KIND: Record<SearchMode, SearchScoreKind> = { fast: 'fused', balanced: 'probability', thorough: 'llm-blend' };

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function resultA(r: SearchResult, includeHighlights: boolean): SearchResult {
  return defined({
    id: r.id,
    title: r.title,
    url: r.url,
    snippet: r.snippet,
    score: r.score,
    source: r.source,
    type: r.type,
    occurredAt: r.occurredAt,
    entities: r.entities?.map((e) => ({ key: e.key, category: e.category })),
    highlights: includeHighlights && r.highlights ? defined({ title: r.highlights.title, snippet: r.highlights.snippet }) : undefined,
  });
}

export function searchShapeA(out: SearchAnswer, request: SearchRequest, took: number, extraLatency: Record<string, number>, requestId: string): SearchResponseA {
  return defined({
    data: out.results.map((r) => resultA(r, request.includeHighlights)),
    context: request.includeContext
      ? {
          clusters: (out.context?.clusters ?? []).map((c) => ({ topic: c.topic, summary: c.summary, keywords: c.keywords })),
          relevantActors: (out.context?.relevantActors ?? []).map((a) => ({ displayName: a.displayName, expertiseDomains: a.expertiseDomains })),
        }
      : undefined,
    meta: defined({
      total: out.total, limit: request.limit, offset: request.offset, took, mode: out.mode, requestedMode: out.requestedMode, fallbackReason: out.fallbackReason,
      scoreKind: SCORE_KIND[out.mode], paths: out.paths,
    }),
    latency: { ...out.latency, ...extraLatency, total: took },
    requestId,
  });
}

export function searchShapeB(out: SearchAnswer, requestId: string): SearchResponseB {
  return {
    results: out.results.map((r) =>
      defined({ id: r.id, title: r.title, snippet: r.snippet, score: r.score, source: r.source, type: r.type, url: r.url, occurredAt: r.occurredAt }),
    ),
    total: out.total,
    requestId,
  };
}

export function contentsShapeA(items: ContentItem[], missing: string[], requestId: string): z.infer<typeof ContentsResponseA> {
  return { items, missing, requestId };
}

export function contentsShape(shape: Shape, items: ContentItem[], missing: string[], requestId: string) {
  return shape === 'A' ? contentsShapeA(items, missing, requestId) : { data: { items, missing }, meta: { total: items.length }, requestId };
}

export function findSimilarShapeA(out: FindSimilarOutcome, took: number, requestId: string): z.infer<typeof FindSimilarResponseA> {
  return {
    source: defined({ id: out.source.id, title: out.source.title, type: out.source.type, cluster: out.source.cluster }),
    similar: out.similar.map((s) =>
      defined({
        id: s.id, title: s.title, url: s.url, snippet: s.snippet, score: s.score, vectorSimilarity: s.vectorSimilarity,
        entityOverlap: s.entityOverlap, sameCluster: s.sameCluster, source: s.source, type: s.type, occurredAt: s.occurredAt,
      }),
    ),
    meta: { total: out.total, took, inputEmbedding: { found: out.inputEmbedding.found, generated: out.inputEmbedding.generated } },
    requestId,
  };
}

export function findSimilarShape(shape: Shape, out: FindSimilarOutcome, took: number, requestId: string) {
  if (shape === 'A') return findSimilarShapeA(out, took, requestId);
  return {
    data: {
      source: { id: out.source.id, title: out.source.title, type: out.source.type },
      similar: out.similar.map((s) =>
        defined({
          id: s.id, title: s.title, url: s.url, snippet: s.snippet, score: s.score, similarity: s.vectorSimilarity,
          entityOverlap: s.entityOverlap, source: s.source, type: s.type, occurredAt: s.occurredAt,
        }),
      ),
    },
    meta: { total: out.total, took },
    requestId,
  };
}
