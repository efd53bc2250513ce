import { z } from 'zod';
import { isUnstorable, refineStorable, StorableString, UNSTORABLE_MESSAGE } from './text.js';

/**
 * Every HTTP request and response body of the query API. The OpenAPI document is generated from these
 * schemas (`z.toJSONSchema`), so descriptions written here are the published documentation.
 * Request objects are `.strict()`: an unknown field is a 400 VALIDATION_ERROR naming it, so a typo
 * (`limt`) never silently falls back to a default. Every request string refuses what Postgres cannot store
 * (NUL, lone surrogates) and every request array has a cap (`REQUEST_LIMITS`, listed in docs/api.md).
 */

/** Caps on request arrays and strings beyond the spec's own bounds. */
export const REQUEST_LIMITS = {
  /** `filters.sourceTypes`, `filters.observationTypes`: more values than exist are a client bug. */
  typeFilterValues: 20,
  /** `filters.actorNames`. */
  actorNames: 100,
  /** `findsimilar.excludeIds`. */
  excludeIds: 100,
  /** `related.types`. */
  edgeTypes: 20,
  /** `proxy/call` `params` keys. */
  proxyParams: 50,
  /** Length of an id, a name or a filter value. */
  shortString: 200,
  /** Length of a URL. */
  url: 2048,
} as const;

/** A short request string: an id, a name, a filter value. */
const Short = () => StorableString().min(1).max(REQUEST_LIMITS.shortString);

/** ISO 8601 datetime with an offset or Z. */
const IsoDateTime = z.iso.datetime({ offset: true });

export const SearchMode = z.enum(['fast', 'balanced', 'thorough']).describe(
  'fast: first-stage retrieval scores only (fused paths), no reranking; balanced: reranked by a reranking model; thorough: LLM-based scoring (answers as balanced, reported in meta.mode, when no LLM is configured).',
);
export type SearchMode = z.infer<typeof SearchMode>;

export const Filters = z
  .object({
    sourceTypes: z.array(Short()).max(REQUEST_LIMITS.typeFilterValues).optional().describe('Restrict to source systems: github, linear, vercel (at most 20 values).'),
    observationTypes: z.array(Short()).max(REQUEST_LIMITS.typeFilterValues).optional().describe('Restrict to content types: pull_request, issue, commit, discussion, document ... (at most 20 values).'),
    actorNames: z.array(Short()).max(REQUEST_LIMITS.actorNames).optional().describe('Restrict to items with one of these contributors (login, name or e-mail; case-insensitive; at most 100).'),
    dateRange: z
      .object({ start: IsoDateTime.optional().describe('Inclusive lower bound.'), end: IsoDateTime.optional().describe('Inclusive upper bound.') })
      .strict()
      .optional(),
  })
  .strict()
  .describe('Combinable filters, applied inside retrieval (before any top-k cut).');
export type Filters = z.infer<typeof Filters>;

export const SearchRequest = z
  .object({
    query: StorableString().trim().min(1).max(2000).describe('Natural-language query (1-2000 characters after trimming).'),
    limit: z.number().int().min(1).max(100).default(10).describe('Results per page, 1-100.'),
    offset: z.number().int().min(0).max(10_000).default(0).describe('Results to skip (0-10000). Next page: offset + limit.'),
    mode: SearchMode.default('balanced'),
    filters: Filters.optional(),
    includeContext: z.boolean().default(true).describe('false: the response has no `context` key.'),
    includeHighlights: z.boolean().default(true).describe('false: results have no `highlights` key.'),
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
  highlights: z
    .object({ title: z.string().optional(), snippet: z.string().optional() })
    .optional()
    .describe('HTML-escaped text with matched query terms wrapped in <mark>.'),
});
export type SearchResult = z.infer<typeof SearchResult>;

export const ClusterContext = z.object({ topic: z.string().nullable(), summary: z.string().nullable(), keywords: z.array(z.string()) });
export const ActorContext = z.object({ displayName: z.string(), expertiseDomains: z.array(z.string()) });
export const SearchContext = z.object({ clusters: z.array(ClusterContext).optional(), relevantActors: z.array(ActorContext).optional() });
export type SearchContext = z.infer<typeof SearchContext>;

export const SearchPaths = z
  .object({ vector: z.boolean(), entity: z.boolean(), cluster: z.boolean(), actor: z.boolean(), lexical: z.boolean() })
  .describe('Which retrieval paths ran.');
export type SearchPaths = z.infer<typeof SearchPaths>;
export const SearchLatency = z
  .object({ total: z.number(), retrieval: z.number(), rerank: z.number() })
  .catchall(z.number())
  .describe('Milliseconds: total, retrieval, rerank always; per-path timings and maxParallel when they ran.');
export type SearchLatency = z.infer<typeof SearchLatency>;

/**
 * What `score` means in a search response, set by the mode that ran: `fused` (fast: the first-stage blend
 * of path scores, readable on its own), `probability` (balanced: the reranker's calibrated probability that
 * the item is the one asked about, small for broad questions even when the order is right: read it against
 * the first result's), `llm-blend` (thorough: 0.6 x the LLM's judgement + 0.4 x that probability).
 */
export const SearchScoreKind = z
  .enum(['fused', 'probability', 'llm-blend'])
  .describe(
    "What each result's score means, by the mode that ran: fused (fast: first-stage blend of path scores), probability (balanced: the reranker's calibrated probability that the item is the one asked about; low for broad questions even when the order is right, so compare it with the first result's), llm-blend (thorough: 0.6 x the LLM's judgement + 0.4 x that probability).",
  );
export type SearchScoreKind = z.infer<typeof SearchScoreKind>;

export const SearchResponseA = z.object({
  data: z.array(SearchResult),
  context: SearchContext.optional(),
  meta: z.object({
    total: z.number().int().describe('Total matching results; more pages exist while offset + limit < total.'),
    limit: z.number().int(),
    offset: z.number().int(),
    took: z.number(),
    mode: z.string().describe('The mode that actually ran.'),
    /** Mode the client asked for, when a different one ran (e.g. `thorough` without an LLM). */
    requestedMode: z.string().optional().describe('Present when the mode that ran differs from the one requested.'),
    fallbackReason: z
      .enum(['llm-failed', 'no-llm', 'no-reranker', 'no-candidates'])
      .optional()
      .describe('With requestedMode: why the requested mode did not run (the LLM call failed, no LLM or reranker configured, nothing to rerank).'),
    scoreKind: SearchScoreKind.optional(),
    paths: SearchPaths,
  }),
  latency: SearchLatency,
  requestId: z.string(),
});
export type SearchResponseA = z.infer<typeof SearchResponseA>;

export const SearchResultB = SearchResult.pick({ id: true, title: true, snippet: true, score: true, source: true, type: true, url: true, occurredAt: true });
export const SearchResponseB = z.object({ results: z.array(SearchResultB), total: z.number().int(), requestId: z.string() });
export type SearchResponseB = z.infer<typeof SearchResponseB>;

export const ContentId = z.string().regex(/^(doc|obs)_[A-Za-z0-9_-]+$/, 'ids start with doc_ or obs_');
export const ContentsRequest = z
  .object({
    ids: z
      .array(Short())
      .min(1)
      .max(50)
      .describe('1-50 content ids (doc_/obs_). Unknown ids, ids of other workspaces and ids without a doc_/obs_ prefix are listed in `missing`, not rejected. Duplicates are answered once.'),
  })
  .strict();
export type ContentsRequest = z.infer<typeof ContentsRequest>;
export const ContentItem = z.object({
  id: z.string(),
  title: z.string().nullable(),
  url: z.string(),
  snippet: z.string(),
  content: z.string().optional().describe('Full text; present for observations (obs_) only.'),
  source: z.string(),
  type: z.string(),
  occurredAt: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type ContentItem = z.infer<typeof ContentItem>;
export const ContentsResponseA = z.object({ items: z.array(ContentItem), missing: z.array(z.string()), requestId: z.string() });
export const ContentsResponseB = z.object({
  data: z.object({ items: z.array(ContentItem), missing: z.array(z.string()) }),
  meta: z.object({ total: z.number().int().describe('Number of items returned.') }),
  requestId: z.string(),
});

export const FindSimilarRequest = z
  .object({
    id: Short().optional().describe('Content id of the input item. Exactly one of id/url (both or neither: 400 BAD_REQUEST).'),
    url: z.url().max(REQUEST_LIMITS.url).refine((u) => !isUnstorable(u) && !/%00/i.test(u), { message: UNSTORABLE_MESSAGE }).optional().describe('Provider URL of the input: an indexed item, or a PR/issue/commit/Linear issue a connection can fetch.'),
    limit: z.number().int().min(1).max(50).default(10),
    threshold: z.number().min(0).max(1).default(0.5).describe('Only results with score >= threshold.'),
    sameSourceOnly: z.boolean().default(false).describe('Only items from the same source system as the input.'),
    excludeIds: z.array(Short()).max(REQUEST_LIMITS.excludeIds).optional().describe('Ids removed from the results (at most 100).'),
    filters: Filters.optional(),
  })
  .strict();
export type FindSimilarRequest = z.infer<typeof FindSimilarRequest>;

export const SimilarItemA = z.object({
  id: z.string(),
  title: z.string(),
  url: z.string(),
  snippet: z.string().optional(),
  score: z.number().min(0).max(1).describe('Weighted blend of vectorSimilarity, entityOverlap and sameCluster. >= 0.90 near duplicate; 0.75-0.89 highly related; 0.60-0.74 moderately; 0.50-0.59 loosely.'),
  vectorSimilarity: z.number(),
  entityOverlap: z.number().min(0).max(1).optional(),
  sameCluster: z.boolean(),
  source: z.string(),
  type: z.string(),
  occurredAt: z.string().optional(),
});
export type SimilarItemA = z.infer<typeof SimilarItemA>;
export const SimilarItemB = SimilarItemA.omit({ vectorSimilarity: true, sameCluster: true }).extend({ similarity: z.number() });
export const FindSimilarSourceA = z.object({
  id: z.string(),
  title: z.string(),
  type: z.string(),
  cluster: z.object({ topic: z.string().nullable(), memberCount: z.number().int() }).optional(),
});
export type FindSimilarSourceA = z.infer<typeof FindSimilarSourceA>;
export const InputEmbedding = z.object({
  found: z.boolean().describe('The embedding was found in storage (indexed item).'),
  generated: z.boolean().describe('The embedding was generated on the fly (URL fetched through a connection).'),
});
export const FindSimilarResponseA = z.object({
  source: FindSimilarSourceA,
  similar: z.array(SimilarItemA),
  meta: z.object({ total: z.number().int(), took: z.number(), inputEmbedding: InputEmbedding }),
  requestId: z.string(),
});
export const FindSimilarResponseB = z.object({
  data: z.object({ source: FindSimilarSourceA.omit({ cluster: true }), similar: z.array(SimilarItemB) }),
  meta: z.object({ total: z.number().int(), took: z.number() }),
  requestId: z.string(),
});

export const RelatedRequest = z
  .object({
    id: Short().describe('Content id of the root (an observation or document of the workspace).'),
    /** Hops from the root (default 1, max 3). */
    depth: z.number().int().min(1).max(3).default(1).describe('Hops from the root, 1-3.'),
    /** Only edges of these types. */
    types: z.array(Short()).max(REQUEST_LIMITS.edgeTypes).optional().describe('Follow and return only edges of these types (e.g. fixes, references, contains).'),
    /** Maximum nodes returned, root included (default 50, max 200). */
    limit: z.number().int().min(1).max(200).default(50).describe('Maximum nodes returned, root included (1-200); strongest edges first.'),
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
export type RelatedNode = z.infer<typeof RelatedNode>;
export const RelatedEdge = z.object({ source: z.string(), target: z.string(), type: z.string(), linkingKey: z.string(), confidence: z.number() });
export type RelatedEdge = z.infer<typeof RelatedEdge>;
export const RelatedResponse = z.object({
  data: z.object({ root: RelatedNode.omit({ isRoot: true }), nodes: z.array(RelatedNode), edges: z.array(RelatedEdge) }),
  meta: z.object({ depth: z.number(), nodeCount: z.number(), edgeCount: z.number(), took: z.number() }),
  requestId: z.string(),
});

/** proxy/search takes no body; an empty object is accepted too. */
export const ProxySearchRequest = z.object({}).strict();
export const ProxyResourceSchema = z.object({
  name: z.string(),
  params: z.record(z.string(), z.string()).describe('Pre-computed action params: spread them into proxy/call params.'),
  syncing: z.array(z.string()).describe('Content streams synced from this resource.'),
});
export const ProxyActionSchema = z.object({
  action: z.string().describe('`<provider>.<verb-noun>`, e.g. github.list-pull-requests.'),
  params: z.array(z.string()).describe('Parameter names.'),
  description: z.string(),
});
export const ProxySearchResponse = z.object({
  connections: z.array(z.object({ id: z.string(), provider: z.string(), resources: z.array(ProxyResourceSchema), actions: z.array(ProxyActionSchema) })),
  requestId: z.string().optional(),
});
export type ProxySearchResponse = z.infer<typeof ProxySearchResponse>;
export const ProxyCallRequest = z
  .object({
    action: Short().describe('An action listed by proxy/search. Unknown: 404 NOT_FOUND {resource: "action"}.'),
    params: z
      .record(z.string(), z.unknown())
      .refine((p) => Object.keys(p).length <= REQUEST_LIMITS.proxyParams, { message: `at most ${REQUEST_LIMITS.proxyParams} params` })
      .superRefine(refineStorable)
      .default({})
      .describe('Flat params, validated against the action (400 VALIDATION_ERROR naming params.<field>).'),
    /** Which connection runs the action when a workspace has several of one provider (default: the first). */
    connectionId: Short().optional().describe('Connection that runs the action when several offer it (default: the oldest).'),
  })
  .strict();
export type ProxyCallRequest = z.infer<typeof ProxyCallRequest>;
export const ProxyCallResponse = z.object({
  status: z.number().int().describe('HTTP status of the provider call.'),
  data: z.unknown(),
  headers: z.record(z.string(), z.string()).describe('Safe provider headers only (etag, link, content-type, rate limits); never credentials.'),
  requestId: z.string().optional(),
});

export const ErrorCode = z.enum(['BAD_REQUEST', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'INTERNAL_ERROR', 'UNAVAILABLE']);
export type ErrorCode = z.infer<typeof ErrorCode>;
export const ErrorBody = z.object({
  error: ErrorCode.describe('Same as code (read by the older reference clients).'),
  code: ErrorCode,
  message: z.string(),
  status: z.number().int(),
  defined: z.boolean(),
  data: z.record(z.string(), z.unknown()).nullable(),
  requestId: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
