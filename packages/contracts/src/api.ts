import { z } from 'zod';

/** ISO 8601 datetime with an offset or Z. */
const IsoDateTime = z.iso.datetime({ offset: true });

export const SearchMode = z.enum(['fast', 'balanced', 'thorough']);
export type SearchMode = z.infer<typeof SearchMode>;

export const Filters = z
  .object({
    sourceTypes: z.array(z.string().min(1)).optional(),
    observationTypes: z.array(z.string().min(1)).optional(),
    actorNames: z.array(z.string().min(1)).optional(),
    dateRange: z.object({ start: IsoDateTime.optional(), end: IsoDateTime.optional() }).strict().optional(),
  })
  .strict();
export type Filters = z.infer<typeof Filters>;

export const SearchRequest = z
  .object({
    query: z.string().trim().min(1).max(2000),
    limit: z.number().int().min(1).max(100).default(10),
    offset: z.number().int().min(0).max(10_000).default(0),
    mode: SearchMode.default('balanced'),
    filters: Filters.optional(),
    includeContext: z.boolean().default(true),
    includeHighlights: z.boolean().default(true),
  })
  .strict();
export type SearchRequest = z.infer<typeof SearchRequest>;

export const EntityRef = z.object({ key: z.string(), category: z.string() });

export const SearchResult = z.object({
  id: z.string(),
  title: z.string(),
  url: z.string(),
  snippet: z.string(),
  score: z.number().min(0).max(1),
  source: z.string(),
  type: z.string(),
  occurredAt: z.string().optional(),
  entities: z.array(EntityRef).optional(),
  highlights: z.object({ title: z.string().optional(), snippet: z.string().optional() }).optional(),
});
export type SearchResult = z.infer<typeof SearchResult>;

export const ClusterContext = z.object({ topic: z.string().nullable(), summary: z.string().nullable(), keywords: z.array(z.string()) });
export const ActorContext = z.object({ displayName: z.string(), expertiseDomains: z.array(z.string()) });

export const SearchPaths = z.object({ vector: z.boolean(), entity: z.boolean(), cluster: z.boolean(), actor: z.boolean(), lexical: z.boolean() });
export const SearchLatency = z
  .object({ total: z.number(), retrieval: z.number(), rerank: z.number() })
  .catchall(z.number());

export const SearchResponseA = z.object({
  data: z.array(SearchResult),
  context: z.object({ clusters: z.array(ClusterContext).optional(), relevantActors: z.array(ActorContext).optional() }).optional(),
  meta: z.object({
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    took: z.number(),
    mode: z.string(),
    /** Mode the client asked for, when a different one ran (e.g. `thorough` without an LLM). */
    requestedMode: z.string().optional(),
    paths: SearchPaths,
  }),
  latency: SearchLatency,
  requestId: z.string(),
});
export type SearchResponseA = z.infer<typeof SearchResponseA>;

export const SearchResponseB = z.object({
  results: z.array(SearchResult.pick({ id: true, title: true, snippet: true, score: true, source: true, type: true, url: true, occurredAt: true })),
  total: z.number().int(),
  requestId: z.string(),
});

export const ContentId = z.string().regex(/^(doc|obs)_[A-Za-z0-9_-]+$/, 'ids start with doc_ or obs_');
export const ContentsRequest = z.object({ ids: z.array(z.string().min(1)).min(1).max(50) }).strict();
export const ContentItem = z.object({
  id: z.string(),
  title: z.string().nullable(),
  url: z.string(),
  snippet: z.string(),
  content: z.string().optional(),
  source: z.string(),
  type: z.string(),
  occurredAt: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type ContentItem = z.infer<typeof ContentItem>;
export const ContentsResponseA = z.object({ items: z.array(ContentItem), missing: z.array(z.string()), requestId: z.string() });
export const ContentsResponseB = z.object({
  data: z.object({ items: z.array(ContentItem), missing: z.array(z.string()) }),
  meta: z.object({ total: z.number().int() }),
  requestId: z.string(),
});

export const FindSimilarRequest = z
  .object({
    id: z.string().min(1).optional(),
    url: z.string().url().optional(),
    limit: z.number().int().min(1).max(50).default(10),
    threshold: z.number().min(0).max(1).default(0.5),
    sameSourceOnly: z.boolean().default(false),
    excludeIds: z.array(z.string().min(1)).max(100).optional(),
    filters: Filters.optional(),
  })
  .strict();
export type FindSimilarRequest = z.infer<typeof FindSimilarRequest>;

export const SimilarItemA = z.object({
  id: z.string(),
  title: z.string(),
  url: z.string(),
  snippet: z.string().optional(),
  score: z.number().min(0).max(1),
  vectorSimilarity: z.number(),
  entityOverlap: z.number().min(0).max(1).optional(),
  sameCluster: z.boolean(),
  source: z.string(),
  type: z.string(),
  occurredAt: z.string().optional(),
});
export const FindSimilarSourceA = z.object({
  id: z.string(),
  title: z.string(),
  type: z.string(),
  cluster: z.object({ topic: z.string().nullable(), memberCount: z.number().int() }).optional(),
});
export const FindSimilarResponseA = z.object({
  source: FindSimilarSourceA,
  similar: z.array(SimilarItemA),
  meta: z.object({ total: z.number().int(), took: z.number(), inputEmbedding: z.object({ found: z.boolean(), generated: z.boolean() }) }),
  requestId: z.string(),
});

export const RelatedRequest = z
  .object({
    id: z.string().min(1),
    /** Hops from the root (default 1, max 3). */
    depth: z.number().int().min(1).max(3).default(1),
    /** Only edges of these types. */
    types: z.array(z.string().min(1)).optional(),
    /** Maximum nodes returned, root included (default 50, max 200). */
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();
export type RelatedRequest = z.infer<typeof RelatedRequest>;
export const RelatedNode = z.object({
  id: z.string(),
  title: z.string(),
  source: z.string(),
  type: z.string(),
  url: z.string(),
  occurredAt: z.string(),
  isRoot: z.boolean(),
});
export const RelatedEdge = z.object({ source: z.string(), target: z.string(), type: z.string(), linkingKey: z.string(), confidence: z.number() });
export const RelatedResponse = z.object({
  data: z.object({ root: RelatedNode.omit({ isRoot: true }), nodes: z.array(RelatedNode), edges: z.array(RelatedEdge) }),
  meta: z.object({ depth: z.number(), nodeCount: z.number(), edgeCount: z.number(), took: z.number() }),
  requestId: z.string(),
});

export const ProxySearchResponse = z.object({
  connections: z.array(
    z.object({
      id: z.string(),
      provider: z.string(),
      resources: z.array(z.object({ name: z.string(), params: z.record(z.string(), z.string()), syncing: z.array(z.string()) })),
      actions: z.array(z.object({ action: z.string(), params: z.array(z.string()), description: z.string() })),
    }),
  ),
  requestId: z.string().optional(),
});
export const ProxyCallRequest = z
  .object({
    action: z.string().min(1),
    params: z.record(z.string(), z.unknown()).default({}),
    /** Which connection runs the action when a workspace has several of one provider (default: the first). */
    connectionId: z.string().min(1).optional(),
  })
  .strict();
export const ProxyCallResponse = z.object({ status: z.number().int(), data: z.unknown(), headers: z.record(z.string(), z.string()) });

export const ErrorCode = z.enum(['BAD_REQUEST', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'INTERNAL_ERROR', 'UNAVAILABLE']);
export type ErrorCode = z.infer<typeof ErrorCode>;
export const ErrorBody = z.object({
  error: ErrorCode,
  code: ErrorCode,
  message: z.string(),
  status: z.number().int(),
  defined: z.boolean(),
  data: z.record(z.string(), z.unknown()).nullable(),
  requestId: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
