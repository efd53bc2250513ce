import type { FindSimilarRequest, SourceEvent } from '@engram/contracts';
import type { Db, SearchReadModel, VectorStore } from '@engram/stores';
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

export class NotFoundError extends Error {
  constructor(readonly resource: string) {
    super(`${resource} not found`);
    this.name = 'NotFoundError';
  }
}

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
  const byId = request.id
    ? await deps.db.query<{ id: string }>('SELECT id FROM items WHERE workspace_id = $1 AND id = $2', [workspaceId, request.id])
    : await deps.db.query<{ id: string }>('SELECT id FROM items WHERE workspace_id = $1 AND url = $2 ORDER BY id LIMIT 1', [workspaceId, request.url]);
  const id = byId.rows[0]?.id;
  if (id) {
    const row = (await loadItems(deps.db, workspaceId, [id])).get(id)!;
    const stored = (await deps.vectors.getVectors(workspaceId, [id])).get(id);
    const vector = stored ?? (await deps.embedder.embed([`${row.title ?? ''}\n${row.content}`]))[0]!;
    const ents = await deps.db.query<{ k: string }>(
      `SELECT e.category || ':' || e.key AS k FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE m.item_id = $1 AND e.category <> 'person'`,
      [id],
    );
    const cluster = await deps.db.query<{ cluster_id: string }>('SELECT cluster_id FROM cluster_members WHERE item_id = $1', [id]);
    return { id, title: row.title ?? '', type: row.type, source: row.source, vector, entities: new Set(ents.rows.map((r) => r.k)), clusterId: cluster.rows[0]?.cluster_id ?? null, found: Boolean(stored), generated: !stored };
  }
  if (request.id || !request.url || !deps.fetchByUrl) throw new NotFoundError('item');
  const event = await deps.fetchByUrl(request.url);
  if (!event) throw new NotFoundError('item');
  const vector = (await deps.embedder.embed([`${event.title ?? ''}\n${event.body}`]))[0]!;
  return { id: null, title: event.title ?? event.url, type: event.type, source: event.source, vector, entities: new Set(), clusterId: null, found: false, generated: true };
}

/** Items like a given one: by meaning (vectors), shared entities, title, topic cluster and direct links. */
export async function findSimilar(deps: FindSimilarDeps, workspaceId: string, request: FindSimilarRequest): Promise<FindSimilarOutcome> {
  const src = await resolveSource(deps, workspaceId, request);
  const exclude = [...(request.excludeIds ?? []), ...(src.id ? [src.id] : [])];
  const filter = toItemFilter(workspaceId, request.filters, exclude);
  if (request.sameSourceOnly) filter.sources = filter.sources ? filter.sources.filter((s) => s === src.source) : [src.source];
  // The same change under another id (a PR and its squash commit) is not "similar": it is the item itself.
  const sameChange = src.id
    ? (await deps.db.query<{ other: string }>(
        `SELECT CASE WHEN source_id = $1 THEN target_id ELSE source_id END AS other FROM edges WHERE type = 'commit_pr' AND (source_id = $1 OR target_id = $1)`,
        [src.id],
      )).rows.map((r) => r.other)
    : [];
  filter.excludeItemIds = [...exclude, ...sameChange];

  const [hits, lexical, links] = await Promise.all([
    deps.vectors.search(src.vector, filter, 100),
    lexicalPath(deps.read, filter, lexemes(src.title.replace(DECORATION, ' ')), { ...DEFAULT_LEXICAL, candidates: 300 }),
    src.id
      ? deps.db.query<{ other: string }>(
          `SELECT CASE WHEN source_id = $1 THEN target_id ELSE source_id END AS other FROM edges WHERE (source_id = $1 OR target_id = $1) AND type <> 'commit_pr'`,
          [src.id],
        )
      : Promise.resolve({ rows: [] as { other: string }[] }),
  ]);
  const linked = new Set(links.rows.map((r) => r.other));
  const topLexical = [...lexical.scores].sort((a, b) => b[1] - a[1]).slice(0, 50).map(([id]) => id);
  const ids = [...new Set([...hits.map((h) => h.itemId), ...topLexical, ...linked])].filter((id) => !filter.excludeItemIds!.includes(id));
  // Every filter applies to every candidate, including graph neighbours (which no index filtered).
  const rows = await loadFiltered(deps.db, filter, ids);
  const allowed = [...rows.keys()];
  const missingVectors = allowed.filter((id) => !hits.some((h) => h.itemId === id));
  const extraVectors = await deps.vectors.getVectors(workspaceId, missingVectors);
  const cosOf = new Map(hits.map((h) => [h.itemId, h.similarity]));
  for (const [id, v] of extraVectors) cosOf.set(id, v.reduce((s, x, i) => s + x * (src.vector[i] ?? 0), 0));
  const [ents, clusters] = await Promise.all([
    deps.db.query<{ item_id: string; k: string }>(
      `SELECT m.item_id, e.category || ':' || e.key AS k FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE m.item_id = ANY($1::text[]) AND e.category <> 'person'`,
      [allowed],
    ),
    deps.db.query<{ item_id: string; cluster_id: string }>('SELECT item_id, cluster_id FROM cluster_members WHERE item_id = ANY($1::text[])', [allowed]),
  ]);
  const entsOf = new Map<string, Set<string>>();
  for (const r of ents.rows) entsOf.set(r.item_id, (entsOf.get(r.item_id) ?? new Set()).add(r.k));
  const clusterOf = new Map(clusters.rows.map((r) => [r.item_id, r.cluster_id]));
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
    const c = await deps.db.query<{ topic: string | null; member_count: number }>('SELECT topic, member_count FROM clusters WHERE id = $1', [src.clusterId]);
    if (c.rows[0]) cluster = { topic: c.rows[0].topic, memberCount: c.rows[0].member_count };
  }
  return {
    source: { id: src.id ?? request.url!, title: src.title, type: src.type, ...(cluster ? { cluster } : {}) },
    similar: scored.slice(0, request.limit),
    total: scored.length,
    inputEmbedding: { found: src.found, generated: src.generated },
  };
}
