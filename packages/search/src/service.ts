import type { SearchMode, SearchRequest, SearchResult } from '@engram/contracts';
import type { Db, VectorStore } from '@engram/stores';
import { areaTitleLift, createAreaModelCache } from './areaLift.js';
import { loadItems, poolCandidates, toCandidate } from './candidates.js';
import { actorsOf, clustersOf, itemEntities, type ActorContext, type ClusterContext } from './enrich.js';
import { toItemFilter } from './filters.js';
import { DEFAULT_FUSION, fuse, fusionSignals, recencyScore, type FusionWeights, type PathName } from './fusion.js';
import { focusSnippet, highlight } from './highlight.js';
import { queryEntities } from './queryEntities.js';
import { actorPath } from './paths/actor.js';
import { clusterPath, createCentroidCache } from './paths/cluster.js';
import { entityPath } from './paths/entity.js';
import { DEFAULT_LEXICAL, lexicalPath, type LexicalParams } from './paths/lexical.js';
import { createStatsCache } from './paths/stats.js';
import { emptyPath, type PathResult } from './paths/types.js';
import { vectorPath } from './paths/vector.js';
import type { Candidate, Reranker } from './rank/types.js';
import { lexemes } from '@engram/text';
import { topicOf } from './queryText.js';

export interface QueryEmbedder {
  readonly model: string;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

export interface SearchDeps {
  db: Db;
  vectors: VectorStore;
  embedder: QueryEmbedder;
  /** Second stage of `balanced` (the learned reranker, or a hosted cross-encoder). */
  reranker?: Reranker;
  /** `thorough`: LLM scoring. Absent: `thorough` runs as `balanced`, and `meta.mode` says so. */
  llm?: Reranker;
  /** Candidates the second stage reorders (default RERANK_DEPTH). */
  rerankDepth?: number;
  fusion?: FusionWeights;
  lexical?: LexicalParams;
  now?: () => Date;
}

export interface SearchOptions {
  /** Ablation: paths that do not run. */
  disablePaths?: PathName[];
  /**
   * Return the fused candidates with their features (reranker training, evaluation). Past the
   * reranking depth (and the page) they carry paths, signals and dates but no text.
   */
  debugCandidates?: boolean;
}

export interface SearchOutcome {
  results: SearchResult[];
  total: number;
  mode: SearchMode;
  requestedMode?: SearchMode;
  paths: Record<PathName, boolean>;
  latency: Record<string, number> & { total: number; retrieval: number; rerank: number };
  context?: { clusters: Omit<ClusterContext, 'id' | 'memberCount'>[]; relevantActors: Omit<ActorContext, 'id'>[] };
  candidates?: Candidate[];
}

/** Candidates the second stage reorders; fixed, so the ranking does not depend on the page asked for. */
export const RERANK_DEPTH = 100;
/** Candidates the LLM judges in `thorough`. */
export const LLM_DEPTH = 20;
const PATH_K = 200;

export function createSearchService(deps: SearchDeps) {
  const stats = createStatsCache(deps.db);
  const centroids = createCentroidCache(deps.db);
  const areaModel = createAreaModelCache(deps.db);
  const fusion = deps.fusion ?? DEFAULT_FUSION;
  const lexical = deps.lexical ?? DEFAULT_LEXICAL;
  const now = deps.now ?? (() => new Date());
  const rerankDepth = deps.rerankDepth ?? RERANK_DEPTH;

  async function search(workspaceId: string, request: SearchRequest, options: SearchOptions = {}): Promise<SearchOutcome> {
    const started = performance.now();
    const off = new Set(options.disablePaths ?? []);
    const runs = (p: PathName) => !off.has(p);
    const filter = toItemFilter(workspaceId, request.filters);
    // Retrieval looks for the question's topic. The second stage gets the question as asked: a hosted
    // cross-encoder and the LLM read it whole, the learned reranker takes its topic in `computeFeatures`.
    const topic = topicOf(request.query);
    const terms = lexemes(topic);
    const words = [...new Set(topic.toLowerCase().split(/[^\p{L}\p{N}_.[\]-]+/u).map((w) => w.replace(/^@/, '').replace(/'s$/, '')).filter(Boolean))];

    const embedStart = performance.now();
    const embedding = runs('vector') || runs('cluster') ? deps.embedder.embed([topic]).then((v) => ({ vector: v[0]!, ms: performance.now() - embedStart })) : null;
    const [lex, ent, act, vec, clu] = await Promise.all([
      runs('lexical') ? lexicalPath(deps.db, stats, filter, terms, lexical) : emptyPath(),
      runs('entity') ? entityPath(deps.db, stats, filter, queryEntities(topic), PATH_K) : emptyPath(),
      runs('actor') ? actorPath(deps.db, filter, { terms, words, k: PATH_K }) : { ...emptyPath(), actorIds: [] as string[] },
      runs('vector') && embedding ? embedding.then((e) => vectorPath(deps.vectors, filter, e.vector, PATH_K)) : emptyPath(),
      runs('cluster') && embedding
        ? embedding.then((e) => clusterPath(deps.db, centroids, filter, e.vector, { clusters: 3, k: PATH_K, floor: 0.35 }))
        : { ...emptyPath(), clusterIds: [] as string[] },
    ]);
    const embeddingMs = embedding ? (await embedding).ms : 0;
    const pathResults: Record<PathName, PathResult> = { lexical: lex, vector: vec, entity: ent, cluster: clu, actor: act };
    const pooled = await poolCandidates(deps.db, filter, pathResults);
    const at = now();
    const fusedPool = [...pooled.values()]
      .map((p) => {
        const recency = recencyScore(new Date(p.row.occurred_at).toISOString(), at, fusion.recencyHalfLifeDays);
        return { id: p.row.id, p, fused: fuse(p.paths, fusionSignals(p.signals, recency), fusion) };
      })
      .sort(byScore((c) => c.fused));
    // Text only for what the second stage scores or the page shows.
    const requestedMode = request.mode;
    const pageEnd = request.offset + request.limit;
    const textDepth = requestedMode === 'fast' && !options.debugCandidates ? pageEnd : Math.max(pageEnd, rerankDepth);
    const rows = await loadItems(deps.db, workspaceId, fusedPool.slice(0, textDepth).map((c) => c.id));
    const fusedList = fusedPool.map((c) => toCandidate(c.p, rows.get(c.id), c.fused, at));
    let areasMs: number | undefined;
    if ((requestedMode !== 'fast' && deps.reranker?.readsAreaSignal) || options.debugCandidates) {
      // The learned reranker's one signal that reads beyond the candidate: its area's titles.
      const areasStart = performance.now();
      const subjects = fusedList.slice(0, rerankDepth).flatMap((c) => {
        const row = rows.get(c.id);
        return row ? [{ id: c.id, title: row.title ?? '', files: row.files }] : [];
      });
      const lift = await areaTitleLift(areaModel, workspaceId, topic, subjects);
      for (const c of fusedList) c.signals.areaTitleLift = lift.get(c.id) ?? 0;
      areasMs = performance.now() - areasStart;
    }
    const retrievalMs = performance.now() - started;

    // Second stage.
    const rerankStart = performance.now();
    let mode: SearchMode = requestedMode;
    let ranked: { c: Candidate; score: number }[] = fusedList.map((c) => ({ c, score: c.fused }));
    if (requestedMode !== 'fast' && deps.reranker && ranked.length > 0) {
      ranked = await rerankTop(ranked, rerankDepth, (cs) => deps.reranker!.rerank(request.query, cs));
    } else if (requestedMode !== 'fast') {
      mode = 'fast';
    }
    if (requestedMode === 'thorough') {
      if (deps.llm && ranked.length > 0) {
        try {
          const head = ranked.slice(0, LLM_DEPTH).map((r) => ({ ...r.c, fused: r.score }));
          ranked = await rerankTop(ranked, LLM_DEPTH, () => deps.llm!.rerank(request.query, head));
          mode = 'thorough';
        } catch {
          mode = deps.reranker ? 'balanced' : 'fast';
        }
      } else {
        mode = deps.reranker ? 'balanced' : 'fast';
      }
    }
    const rerankMs = performance.now() - rerankStart;

    // Page and enrich.
    const enrichStart = performance.now();
    // An item deleted since it was pooled has no row: it drops out of the page.
    const page = ranked.slice(request.offset, request.offset + request.limit).filter((r) => rows.has(r.c.id));
    const pageIds = page.map((r) => r.c.id);
    const termSet = new Set(terms);
    const [entities, context] = await Promise.all([
      itemEntities(deps.db, pageIds),
      request.includeContext
        ? Promise.all([clustersOf(deps.db, pageIds, clu.clusterIds), actorsOf(deps.db, pageIds, act.actorIds)])
        : Promise.resolve(null),
    ]);
    const results: SearchResult[] = page.map(({ c, score }) => {
      const snippet = focusSnippet(c.content, c.snippet, termSet);
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
      if (request.includeHighlights) result.highlights = { title: highlight(c.title, termSet), snippet: highlight(snippet, termSet) };
      return result;
    });
    const enrichMs = performance.now() - enrichStart;
    const parallel = { embedding: embeddingMs, search: lex.ms, vectorSearch: vec.ms, entitySearch: ent.ms, clusterSearch: clu.ms, actorSearch: act.ms };
    const outcome: SearchOutcome = {
      results,
      total: ranked.length,
      mode,
      ...(mode !== requestedMode ? { requestedMode } : {}),
      paths: { lexical: runs('lexical'), vector: runs('vector'), entity: runs('entity'), cluster: runs('cluster'), actor: runs('actor') },
      latency: {
        total: round(performance.now() - started, 1),
        retrieval: round(retrievalMs, 1),
        rerank: round(rerankMs, 1),
        enrich: round(enrichMs, 1),
        maxParallel: round(Math.max(...Object.values(parallel)), 1),
        ...Object.fromEntries(Object.entries(parallel).map(([k, v]) => [k, round(v, 1)])),
        ...(areasMs !== undefined ? { areas: round(areasMs, 1) } : {}),
      },
    };
    if (context) {
      outcome.context = {
        clusters: context[0].map((c) => ({ topic: c.topic, summary: c.summary, keywords: c.keywords })),
        relevantActors: context[1].map((a) => ({ displayName: a.displayName, expertiseDomains: a.expertiseDomains })),
      };
    }
    if (options.debugCandidates) outcome.candidates = fusedList;
    return outcome;
  }

  return {
    search,
  };
}
export type SearchService = ReturnType<typeof createSearchService>;

const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Descending by score, ties by id: a total order, so pages never overlap or skip. */
function byScore<T extends { id: string }>(score: (t: T) => number) {
  return (a: T, b: T) => score(b) - score(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Rescores the first `depth` entries and keeps them above the rest; the rest keep their order and are
 * scaled below the lowest rescored score, so scores stay monotone with rank and in [0, 1].
 */
async function rerankTop(
  ranked: { c: Candidate; score: number }[],
  depth: number,
  score: (cs: Candidate[]) => Promise<number[]>,
): Promise<{ c: Candidate; score: number }[]> {
  const head = ranked.slice(0, depth);
  const tail = ranked.slice(depth);
  const scores = await score(head.map((r) => r.c));
  const rescored = head
    .map((r, i) => ({ c: r.c, score: Math.max(0, Math.min(1, scores[i] ?? 0)) }))
    .sort((a, b) => b.score - a.score || (a.c.id < b.c.id ? -1 : a.c.id > b.c.id ? 1 : 0));
  const floor = rescored.length ? rescored[rescored.length - 1]!.score : 1;
  const tailMax = tail.length ? tail[0]!.score : 1;
  const scale = tailMax > 0 ? (floor * 0.99) / tailMax : 0;
  return [...rescored, ...tail.map((r) => ({ c: r.c, score: Math.min(r.score, r.score * scale) }))];
}
