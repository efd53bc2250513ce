import type { SearchRequest } from '@engram/contracts';
import { consistentReads, openSearchReadModel } from '@engram/stores';
import { lexemes } from '@engram/text';
import { createAreaModelCache } from './areaLift.js';
import { toItemFilter } from './filters.js';
import { DEFAULT_FUSION, type PathName } from './fusion.js';
import { createActorDirectoryCache } from './paths/actor.js';
import { sharedSnapshots } from './paths/atRest.js';
import { createCentroidCache } from './paths/cluster.js';
import { DEFAULT_LEXICAL } from './paths/lexical.js';
import { createContextReader } from './pipeline/context.js';
import { fuseCandidates } from './pipeline/fuse.js';
import { SearchGate } from './pipeline/gate.js';
import { memoizeEmbedder } from './pipeline/memoizeEmbedder.js';
import { present } from './pipeline/present.js';
import { retrieve } from './pipeline/retrieve.js';
import { RERANK_DEPTH, secondStage } from './pipeline/secondStage.js';
import type { Question, SearchDeps, SearchOptions, SearchOutcome } from './pipeline/types.js';
import { termWeightsOf, topicOf } from './queryText.js';

export { RERANK_DEPTH, LLM_DEPTH } from './pipeline/secondStage.js';
export type { QueryEmbedder, SearchDeps, SearchOptions, SearchOutcome } from './pipeline/types.js';

/**
 * The search pipeline: retrieve (five paths) -> fuse (pool and blend) -> second stage (reranker, LLM)
 * -> present (page, snippets, context). Each stage is a function of plain inputs in `pipeline/`; this
 * file holds what lives as long as the service (caches, the read model) and times the stages.
 */
export function createSearchService(deps: SearchDeps) {
  const opened = deps.read ? null : openSearchReadModel(deps.db, deps.readStalenessMs ? { maxStalenessMs: deps.readStalenessMs } : {});
  const read = deps.read ?? opened!;
  const shared = sharedSnapshots(deps.db, deps.contextStalenessMs);
  const centroids = createCentroidCache(deps.db, shared, deps.contextStalenessMs);
  const actors = createActorDirectoryCache(deps.db, deps.contextStalenessMs);
  const areaModel = createAreaModelCache(deps.db);
  const context = createContextReader(deps.db, read, shared, deps.contextStalenessMs);
  const embedder = memoizeEmbedder(deps.embedder);

  const fusion = deps.fusion ?? DEFAULT_FUSION;
  const lexical = deps.lexical ?? DEFAULT_LEXICAL;
  const now = deps.now ?? (() => new Date());
  const rerankDepth = deps.rerankDepth ?? RERANK_DEPTH;
  // A first stage read from memory spends its time on this event loop, as the embedded default's does.
  const gate = new SearchGate(deps.concurrency ?? (deps.db.kind === 'pglite' || read.kind === 'memory' ? DEFAULT_EMBEDDED_CONCURRENCY : 0));
  // A search alone scores its lexical path here; beside others, long reads go to the lexical thread.
  const lexicalOffThread = () => gate.active > 1;

  /** A search, once the gate admits it; `latency.total` counts the wait, `latency.queue` shows it. */
  function search(workspaceId: string, request: SearchRequest, options: SearchOptions = {}): Promise<SearchOutcome> {
    const arrived = performance.now();
    // One freshness check per feed a search: its reads see every write committed before it began.
    return gate.run(() => consistentReads(() => runSearch(workspaceId, request, options, arrived)), options.signal);
  }

  async function runSearch(workspaceId: string, request: SearchRequest, options: SearchOptions, arrived: number): Promise<SearchOutcome> {
    const started = performance.now();
    const off = new Set(options.disablePaths ?? []);
    const runs = (p: PathName) => !off.has(p);
    // Retrieval looks for the question's topic. The second stage gets the question as asked: a hosted
    // cross-encoder and the LLM read it whole, the learned reranker takes its topic in `computeFeatures`.
    const topic = topicOf(request.query);
    const terms = lexemes(topic);
    const question: Question = {
      workspaceId,
      query: request.query,
      topic,
      terms,
      termWeights: termWeightsOf(terms),
      words: [...new Set(topic.toLowerCase().split(/[^\p{L}\p{N}_.[\]-]+/u).map((w) => w.replace(/^@/, '').replace(/'s$/, '')).filter(Boolean))],
      filter: toItemFilter(workspaceId, request.filters),
    };

    const retrieved = await retrieve({ db: deps.db, read, vectors: deps.vectors, embedder, centroids, actors, lexical, lexicalOffThread }, question, runs, options.signal);
    // Text only for what the second stage scores or the page shows.
    const requestedMode = request.mode;
    const pageEnd = request.offset + request.limit;
    const fast = requestedMode === 'fast' && !options.debugCandidates;
    const readsAreas = (requestedMode !== 'fast' && deps.reranker?.readsAreaSignal) || options.debugCandidates;
    const fused = await fuseCandidates({ db: deps.db, read, fusion, now: now() }, question, retrieved, {
      textDepth: fast ? pageEnd : Math.max(pageEnd, rerankDepth),
      signals: !fast,
      ...(readsAreas ? { areas: { model: areaModel, depth: rerankDepth } } : {}),
    });
    const retrievalMs = performance.now() - started;

    const rerankStart = performance.now();
    const second = await secondStage({ reranker: deps.reranker, llm: deps.llm, depth: rerankDepth, signal: options.signal }, request.query, fused.candidates, requestedMode);
    const rerankMs = performance.now() - rerankStart;

    const enrichStart = performance.now();
    const shown = await present({ read, context }, request, second.ranked, fused.rows, question.terms, { ...retrieved, workspaceId });
    const enrichMs = performance.now() - enrichStart;

    const p = retrieved.paths;
    const parallel = { embedding: retrieved.embeddingMs, search: p.lexical.ms, vectorSearch: p.vector.ms, entitySearch: p.entity.ms, clusterSearch: p.cluster.ms, actorSearch: p.actor.ms };
    const outcome: SearchOutcome = {
      results: shown.results,
      total: second.ranked.length,
      mode: second.mode,
      ...(second.mode !== requestedMode ? { requestedMode } : {}),
      paths: retrieved.ran,
      latency: {
        total: round(performance.now() - arrived, 1),
        queue: round(started - arrived, 1),
        retrieval: round(retrievalMs, 1),
        rerank: round(rerankMs, 1),
        enrich: round(enrichMs, 1),
        maxParallel: round(Math.max(...Object.values(parallel)), 1),
        ...Object.fromEntries(Object.entries(parallel).map(([k, v]) => [k, round(v, 1)])),
        ...(fused.areasMs !== undefined ? { areas: round(fused.areasMs, 1) } : {}),
      },
    };
    if (shown.context) {
      outcome.context = {
        clusters: shown.context.clusters.map((c) => ({ topic: c.topic, summary: c.summary, keywords: c.keywords })),
        relevantActors: shown.context.actors.map((a) => ({ displayName: a.displayName, expertiseDomains: a.expertiseDomains })),
      };
    }
    if (options.debugCandidates) outcome.candidates = fused.candidates;
    if (retrieved.embeddingError !== undefined) outcome.embeddingError = retrieved.embeddingError;
    return outcome;
  }

  return {
    search,
    /** The first stage's read model (in memory on the embedded default). */
    readModel: read,
    /** Settles once the read model has loaded (or failed to: SQL serves); at once for an injected one that cannot say. */
    readModelLoaded: (): Promise<boolean> => (opened ?? deps.read)?.loaded?.() ?? Promise.resolve(false),
    /** The query embedder search uses (memoized), for find-similar on text that is not indexed. */
    embedder,
    async close(): Promise<void> {
      if (!deps.read) await read.close();
    },
  };
}
export type SearchService = ReturnType<typeof createSearchService>;

/**
 * Searches in progress at once on the embedded default (`SearchDeps.concurrency`): enough that one
 * search's waits for the lexical, vector scan and database threads overlap other searches' CPU, few enough
 * that the event loop turns every few searches. Eight since the forty-sixth session: at 100k items under 16
 * clients, four left about a quarter of the two cores idle while searches queued; eight served 10-13% more
 * searches at the same client p95, and a lower p95 during an import, whose items then take longer under that
 * load (bench/results/scale-2026-12-01-s46-account.md). On a Postgres server searches spend their time in
 * the database and are not gated.
 */
export const DEFAULT_EMBEDDED_CONCURRENCY = 8;

const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;
