import type { Db, SearchReadModel, VectorStore } from '@engram/stores';
import type { PathName } from '../fusion.js';
import { actorPath, type ActorDirectoryCache } from '../paths/actor.js';
import { clusterPath, type CentroidCache } from '../paths/cluster.js';
import { entityPath } from '../paths/entity.js';
import { lexicalPath, type LexicalParams } from '../paths/lexical.js';
import { emptyPath } from '../paths/types.js';
import { vectorPath } from '../paths/vector.js';
import { queryEntities } from '../queryEntities.js';
import type { Question, QueryEmbedder, Retrieved } from './types.js';
import { withTimeWindow } from './window.js';

/** The cluster path's result when it does not run. */
const noClusters = () => ({ ...emptyPath(), clusterIds: [] as string[] });

/** Candidates each path returns at most. */
export const PATH_K = 200;

export interface RetrieveDeps {
  db: Db;
  read: SearchReadModel;
  vectors: VectorStore;
  embedder: QueryEmbedder;
  centroids: CentroidCache;
  actors: ActorDirectoryCache;
  lexical: LexicalParams;
  /** Whether the lexical path may score a long read on its thread: while other searches are under way. */
  lexicalOffThread?: () => boolean;
}

/**
 * Stage 1, retrieve: the five paths in parallel (lexical, vector, entity, cluster, actor), each with
 * the filter applied inside its read. The query is embedded once, for the vector and cluster paths;
 * `signal` cancels that embedding call. A time window the question names ("since 3.5", "this year") first
 * narrows `q.filter` (`window.ts`), so the later stages see the same filter.
 */
export async function retrieve(deps: RetrieveDeps, q: Question, runs: (p: PathName) => boolean, signal?: AbortSignal): Promise<Retrieved> {
  q.filter = await withTimeWindow(deps.db, q.query, q.filter);
  const embedStart = performance.now();
  let embeddingError: unknown;
  // The query's embedding, or null when the embedding provider failed: the search then answers from the
  // paths that need none (lexical, entity, actor) rather than failing; `ran` shows which paths ran. A
  // cancelled search still fails.
  const embedding =
    runs('vector') || runs('cluster')
      ? deps.embedder.embed([q.topic], { signal }).then(
          (v) => ({ vector: v[0]!, ms: performance.now() - embedStart }),
          (err: unknown) => {
            if (signal?.aborted) throw err;
            embeddingError = err;
            return null;
          },
        )
      : null;
  const [lexical, entity, actor, vector, cluster] = await Promise.all([
    runs('lexical') ? lexicalPath(deps.read, q.filter, q.terms, deps.lexical, q.termWeights, { offThread: deps.lexicalOffThread?.() ?? false }) : emptyPath(),
    runs('entity') ? entityPath(deps.read, q.filter, queryEntities(q.topic), PATH_K) : emptyPath(),
    runs('actor') ? actorPath(deps.read, deps.actors, q.filter, { terms: q.terms, words: q.words, k: PATH_K }) : { ...emptyPath(), actorIds: [] as string[] },
    runs('vector') && embedding ? embedding.then((e) => (e ? vectorPath(deps.vectors, q.filter, e.vector, PATH_K) : emptyPath())) : emptyPath(),
    runs('cluster') && embedding
      ? embedding.then((e) => (e ? clusterPath(deps.read, deps.centroids, q.filter, e.vector, { clusters: 3, k: PATH_K, floor: 0.35 }) : noClusters()))
      : noClusters(),
  ]);
  const embedded = embedding ? await embedding : null;
  return {
    paths: { lexical, vector, entity, cluster, actor },
    ran: { lexical: runs('lexical'), vector: runs('vector') && embedded !== null, entity: runs('entity'), cluster: runs('cluster') && embedded !== null, actor: runs('actor') },
    clusterIds: cluster.clusterIds,
    actorIds: actor.actorIds,
    embeddingMs: embedded?.ms ?? 0,
    ...(embeddingError !== undefined ? { embeddingError } : {}),
  };
}
