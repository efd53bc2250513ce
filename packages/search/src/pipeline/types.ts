import type { SearchMode, SearchResult } from '@engram/contracts';
import type { Db, SearchReadModel, VectorStore } from '@engram/stores';
import type { PathName, FusionWeights } from '../fusion.js';
import type { LexicalParams } from '../paths/lexical.js';
import type { PathResult } from '../paths/types.js';
import type { Candidate, Reranker } from '../rank/types.js';
import type { ActorContext, ClusterContext } from '../enrich.js';
import type { ItemFilter } from '../filters.js';

export interface QueryEmbedder {
  readonly model: string;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

export interface SearchDeps {
  db: Db;
  vectors: VectorStore;
  embedder: QueryEmbedder;
  /**
   * The first stage's reads; default: in memory on PGlite, SQL on a Postgres server (`openSearchReadModel`).
   * One given is its owner's to close; `loaded` (as `openSearchReadModel` has it) says when its load settled.
   */
  read?: SearchReadModel & { loaded?(): Promise<boolean> };
  /** With the default read model in memory: how long a search waits for a catch-up behind an import's writes. */
  readStalenessMs?: number;
  /** Embedded default: how stale a search's context snapshots (clusters, people) may be while writes go on (`snapshotAtRest`). */
  contextStalenessMs?: number;
  /** Second stage of `balanced` (the learned reranker, or a hosted cross-encoder). */
  reranker?: Reranker;
  /** `thorough`: LLM scoring. Absent: `thorough` runs as `balanced`, and `meta.mode` says so. */
  llm?: Reranker;
  /** Candidates the second stage reorders (default RERANK_DEPTH). */
  rerankDepth?: number;
  fusion?: FusionWeights;
  lexical?: LexicalParams;
  now?: () => Date;
  /** Searches in progress at once, the rest waiting in order (0: no limit); default DEFAULT_EMBEDDED_CONCURRENCY on PGlite or with the read model in memory, 0 when it reads SQL on a Postgres server. */
  concurrency?: number;
}

export interface SearchOptions {
  /** Ablation: paths that do not run. */
  disablePaths?: PathName[];
  /**
   * Return the fused candidates with their features (reranker training, evaluation). Past the
   * reranking depth (and the page) they carry paths, signals and dates but no text.
   */
  debugCandidates?: boolean;
  /** Aborts the calls that leave the process (query embedding, hosted reranker, LLM): the request's deadline. */
  signal?: AbortSignal;
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
  /** Set when the query could not be embedded: the search answered without the vector and cluster paths. */
  embeddingError?: unknown;
}

/** What the question asks, as every stage reads it. */
export interface Question {
  workspaceId: string;
  /** The question as asked: the hosted second stages read it whole. */
  query: string;
  /** Its topic (a leading "what do we know about" dropped): what retrieval looks for. */
  topic: string;
  terms: string[];
  /** Lexical weights of terms that are not 1 (`termWeightsOf`: intent words such as "bug" beside content words). */
  termWeights: ReadonlyMap<string, number>;
  words: string[];
  filter: ItemFilter;
}

/** The first stage's output: each path's candidates and what they took. */
export interface Retrieved {
  paths: Record<PathName, PathResult>;
  ran: Record<PathName, boolean>;
  clusterIds: string[];
  actorIds: string[];
  embeddingMs: number;
  /** Why the query could not be embedded (the vector and cluster paths then did not run). */
  embeddingError?: unknown;
}

/** A ranked candidate with its current score. */
export interface Scored {
  c: Candidate;
  score: number;
}
