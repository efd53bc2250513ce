import { NotFoundError, type FindSimilarRequest, type SourceEvent } from '@engram/contracts';
import { clusterIdsOf, clusterSummary, entityKeysOf, findItemId, linkedItemIds, type Db, type SearchReadModel, type VectorStore } from '@engram/stores';
import { loadFiltered, loadItems } from './candidates.js';
import { toItemFilter } from './filters.js';
import { lexicalPath, DEFAULT_LEXICAL } from './paths/lexical.js';
import { previewOf } from './preview.js';
import type { QueryEmbedder } from './pipeline/types.js';
import { lexemes } from '@engram/text';

/**
 * Weights of the find-similar score (documented in docs/api.md). Each factor is in [0, 1]:
 * - vector: cosine mapped so unrelated texts (cos <= 0.25) give 0 and near-identical ones (cos >= 0.95) 1;
 * - entity: Jaccard overlap of the two items' entities;
 * - title: overlap of title terms, ignoring revert/cherry-pick decorations;
 * - cluster: 1 when both sit in the same topic cluster;
 * - link: 1 when the related graph links them directly (a revert, a reference, a fix).
 * A duplicate (all factors ~1) scores >= 0.90, matching the spec's bands.
 */
export const SIMILARITY_WEIGHTS = { vector: 0.45, entity: 0.15, title: 0.3, cluster: 0.05, link: 0.05 } as const;

export interface SimilarItem {
  id: string;
  title: string;
  url: string;
  snippet: string;
  score: number;
  vectorSimilarity: number;
  entityOverlap: number;
  sameCluster: boolean;
  source: string;
  type: string;
  occurredAt: string;
}

export interface FindSimilarOutcome {
  source: { id: string; title: string; type: string; cluster?: { topic: string | null; memberCount: number } };
  similar: SimilarItem[];
  total: number;
  inputEmbedding: { found: boolean; generated: boolean };
}

export interface FindSimilarDeps {
  db: Db;
  vectors: VectorStore;
  embedder: QueryEmbedder;
  read: SearchReadModel;
  /** Fetches a provider URL through one of the workspace's connections (null when none can). */
  fetchByUrl?: (url: string, signal?: AbortSignal) => Promise<SourceEvent | null>;
  /** Cancels the calls that leave the process (the url fetch, the embedding of an unindexed text). */
  signal?: AbortSignal;
}

const vectorFactor = (cos: number): number => Math.max(0, Math.min(1, (cos - 0.25) / 0.7));
const DECORATION = /^(revert|reapply|cherry[- ]pick(ed)?)\b[:\s]*|["'`]|\(#\d+\)|\[[^\]]*\]/gi;
const titleTerms = (title: string): Set<string> => new Set(lexemes(title.replace(DECORATION, ' ')));
const jaccard = (a: Set<string>, b: Set<string>): number => {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
};

interface SourceInfo {
  id: string | null;
  title: string;
  type: string;
  source: string;
  vector: number[];
  entities: Set<string>;
  clusterId: string | null;
  found: boolean;
  generated: boolean;
}

async function resolveSource(deps: FindSimilarDeps, workspaceId: string, request: FindSimilarRequest): Promise<SourceInfo> {
  const id = await findItemId(deps.db, workspaceId, request.id ? { id: request.id } : { url: request.url! });
  if (id) {
    const row = (await loadItems(deps.db, workspaceId, [id])).get(id)!;
    const stored = (await deps.vectors.getVectors(workspaceId, [id])).get(id);
    const vector = stored ? Array.from(stored) : (await deps.embedder.embed([`${row.title ?? ''}\n${row.content}`], { signal: deps.signal }))[0]!;
    const entities = (await entityKeysOf(deps.db, [id])).get(id) ?? new Set<string>();
    const clusterId = (await clusterIdsOf(deps.db, [id])).get(id) ?? null;
    return { id, title: row.title ?? '', type: row.type, source: row.source, vector, entities, clusterId, found: Boolean(stored), generated: !stored };
  }
  if (request.id) throw new NotFoundError('item', `no item ${JSON.stringify(request.id)} in this workspace`);
  const unresolvable = () => new NotFoundError('item', 'the url is neither indexed nor fetchable through a connection of this workspace');
  if (!request.url || !deps.fetchByUrl) throw unresolvable();
  const event = await deps.fetchByUrl(request.url, deps.signal);
  if (!event) throw unresolvable();
  const vector = (await deps.embedder.embed([`${event.title ?? ''}\n${event.body}`], { signal: deps.signal }))[0]!;
  return { id: null, title: event.title ?? event.url, type: event.type, source: event.source, vector, entities: new Set(), clusterId: null, found: false, generated: true };
}

/** Items like a given one: by meaning (vectors), shared entities, title, topic cluster and direct links. */
export async function findSimilar(deps: FindSimilarDeps, workspaceId: string, request: FindSimilarRequest): Promise<FindSimilarOutcome> {
  const src = await resolveSource(deps, workspaceId, request);
  const exclude = [...(request.excludeIds ?? []), ...(src.id ? [src.id] : [])];
  const filter = toItemFilter(workspaceId, request.filters, exclude);
  if (request.sameSourceOnly) filter.sources = filter.sources ? filter.sources.filter((s) => s === src.source) : [src.source];
  // The same change under another id (a PR and its squash commit) is not "similar": it is the item itself.
  const sameChange = src.id ? await linkedItemIds(deps.db, src.id, 'sameChange') : [];
  filter.excludeItemIds = [...exclude, ...sameChange];

  const [hits, lexical, links] = await Promise.all([
    deps.vectors.search(src.vector, filter, 100),
    lexicalPath(deps.read, filter, lexemes(src.title.replace(DECORATION, ' ')), { ...DEFAULT_LEXICAL, candidates: 300 }),
    src.id ? linkedItemIds(deps.db, src.id, 'related') : Promise.resolve([] as string[]),
  ]);
  const linked = new Set(links);
  const topLexical = [...lexical.scores].sort((a, b) => b[1] - a[1]).slice(0, 50).map(([id]) => id);
  const ids = [...new Set([...hits.map((h) => h.itemId), ...topLexical, ...linked])].filter((id) => !filter.excludeItemIds!.includes(id));
  // Every filter applies to every candidate, including graph neighbours (which no index filtered).
  const rows = await loadFiltered(deps.db, filter, ids);
  const allowed = [...rows.keys()];
  const missingVectors = allowed.filter((id) => !hits.some((h) => h.itemId === id));
  const extraVectors = await deps.vectors.getVectors(workspaceId, missingVectors);
  const cosOf = new Map(hits.map((h) => [h.itemId, h.similarity]));
  for (const [id, v] of extraVectors) cosOf.set(id, v.reduce((s, x, i) => s + x * (src.vector[i] ?? 0), 0));
  const [entsOf, clusterOf] = await Promise.all([entityKeysOf(deps.db, allowed), clusterIdsOf(deps.db, allowed)]);
  const srcTitle = titleTerms(src.title);
  const w = SIMILARITY_WEIGHTS;

  const scored = allowed
    .map((id) => {
      const row = rows.get(id)!;
      const cos = cosOf.get(id) ?? 0;
      const entityOverlap = jaccard(src.entities, entsOf.get(id) ?? new Set());
      const sameCluster = Boolean(src.clusterId && clusterOf.get(id) === src.clusterId);
      const title = jaccard(srcTitle, titleTerms(row.title ?? ''));
      const score = w.vector * vectorFactor(cos) + w.entity * entityOverlap + w.title * title + w.cluster * (sameCluster ? 1 : 0) + w.link * (linked.has(id) ? 1 : 0);
      return {
        id,
        title: row.title ?? '',
        url: row.url,
        snippet: previewOf(row.snippet, row.files),
        score: Math.round(Math.min(1, score) * 10_000) / 10_000,
        vectorSimilarity: Math.round(cos * 10_000) / 10_000,
        entityOverlap: Math.round(entityOverlap * 10_000) / 10_000,
        sameCluster,
        source: row.source,
        type: row.type,
        occurredAt: new Date(row.occurred_at).toISOString(),
      };
    })
    .filter((s) => s.score >= request.threshold)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));

  let cluster: FindSimilarOutcome['source']['cluster'];
  if (src.clusterId) {
    const c = await clusterSummary(deps.db, src.clusterId);
    if (c) cluster = c;
  }
  return {
    source: { id: src.id ?? request.url!, title: src.title, type: src.type, ...(cluster ? { cluster } : {}) },
    similar: scored.slice(0, request.limit),
    total: scored.length,
    inputEmbedding: { found: src.found, generated: src.generated },
  };
}
