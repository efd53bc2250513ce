import { clusterCentroids, clusterMembers, type Queryable } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
import { timed, type PathResult } from './types.js';

interface Centroid {
  id: string;
  vector: number[];
  memberCount: number;
}

const TTL_MS = 60_000;

const dot = (a: number[], b: number[]): number => {
  let s = 0;
  for (let i = 0; i < a.length && i < b.length; i++) s += a[i]! * b[i]!;
  return s;
};
const norm = (a: number[]): number => Math.sqrt(dot(a, a)) || 1;

/** Cluster centroids per workspace, cached briefly (re-clustering replaces them). */
export function createCentroidCache(db: Queryable) {
  const cache = new Map<string, { at: number; centroids: Centroid[] }>();
  return async (workspaceId: string): Promise<Centroid[]> => {
    const hit = cache.get(workspaceId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.centroids;
    const centroids = await clusterCentroids(db, workspaceId);
    cache.set(workspaceId, { at: Date.now(), centroids });
    return centroids;
  };
}
export type CentroidCache = ReturnType<typeof createCentroidCache>;

/**
 * The cluster path: the topic clusters closest to the query, and their members ranked by how central
 * they are (cluster similarity x member similarity). It finds items that share a topic with the query
 * without sharing its words.
 */
export function clusterPath(db: Queryable, centroids: CentroidCache, filter: ItemFilter, queryVector: number[], options: { clusters: number; k: number; floor: number }): Promise<PathResult & { clusterIds: string[] }> {
  const started = performance.now();
  return (async () => {
    const all = await centroids(filter.workspaceId);
    const qn = norm(queryVector);
    const ranked = all
      .map((c) => ({ id: c.id, sim: dot(queryVector, c.vector) / (qn * norm(c.vector)) }))
      .filter((c) => c.sim >= options.floor)
      .sort((a, b) => b.sim - a.sim)
      .slice(0, options.clusters);
    if (ranked.length === 0) return { scores: new Map(), ms: performance.now() - started, clusterIds: [] };
    const inner = await timed(async () => {
      const members = await clusterMembers(db, filter, ranked.map((c) => c.id));
      const simOf = new Map(ranked.map((c) => [c.id, c.sim]));
      const scored = members
        .map((r) => ({ id: r.id, score: Math.max(0, Math.min(1, (simOf.get(r.clusterId) ?? 0) * Math.max(0, r.similarity))) }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, options.k);
      return { scores: new Map(scored.map((s) => [s.id, s.score])) };
    });
    return { ...inner, ms: performance.now() - started, clusterIds: ranked.map((c) => c.id) };
  })();
}
