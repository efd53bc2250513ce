import { createHash } from 'node:crypto';
import type { CollectionSpec, CollectionState, VectorFilter, VectorHit, VectorRecord, VectorStore } from './types.js';

const REGISTRY = 'engram_vector_registry';

const collectionName = (spec: CollectionSpec): string =>
  `engram_${spec.model.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 40)}_${spec.dimensions}`;

/** Qdrant point ids must be unsigned ints or UUIDs: derive a UUID from the chunk id. */
const pointId = (id: string): string => {
  const h = createHash('sha1').update(id).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

type Condition = Record<string, unknown>;

function toFilter(filter: VectorFilter): { must: Condition[]; must_not?: Condition[] } {
  const must: Condition[] = [{ key: 'workspace_id', match: { value: filter.workspaceId } }];
  if (filter.sources?.length) must.push({ key: 'source', match: { any: filter.sources } });
  if (filter.types?.length) must.push({ key: 'type', match: { any: filter.types } });
  if (filter.actorNames?.length) must.push({ key: 'actor_names', match: { any: filter.actorNames } });
  if (filter.from || filter.to) {
    must.push({
      key: 'occurred_at',
      range: { ...(filter.from ? { gte: Date.parse(filter.from) } : {}), ...(filter.to ? { lte: Date.parse(filter.to) } : {}) },
    });
  }
  const mustNot = filter.excludeItemIds?.length ? [{ key: 'item_id', match: { any: filter.excludeItemIds } }] : undefined;
  return mustNot ? { must, must_not: mustNot } : { must };
}

/**
 * Qdrant (`qdrant://host:port`): how a deployment scales vectors past one machine. Payload indexes on
 * every filter field make filters part of the HNSW search (Qdrant filters during traversal).
 * No Qdrant binary can run on the CI machine; this adapter's contract suite runs when QDRANT_URL is set.
 */
export async function createQdrantVectorStore(url: string, options: { apiKey?: string } = {}): Promise<VectorStore> {
  const parsed = new URL(url.replace(/^qdrant:/, 'http:'));
  // Loaded here, not with the package: a deployment on pgvector (the embedded default) never needs it.
  const { QdrantClient } = await import('@qdrant/js-client-rest');
  const client = new QdrantClient({ host: parsed.hostname, port: Number(parsed.port || 6333), apiKey: options.apiKey, checkCompatibility: false });
  let name: string | null = null;
  const requireName = (): string => {
    if (!name) throw new Error('vector store used before ensureCollection()');
    return name;
  };

  async function ensureRegistry(): Promise<void> {
    const { exists } = await client.collectionExists(REGISTRY);
    if (!exists) await client.createCollection(REGISTRY, { vectors: { size: 1, distance: 'Dot' } });
  }

  return {
    kind: 'qdrant',
    async ensureCollection(spec) {
      await ensureRegistry();
      const target = collectionName(spec);
      const reg = await client.retrieve(REGISTRY, { ids: [pointId('active')], with_payload: true });
      const prev = reg[0]?.payload as { name: string; model: string; dimensions: number } | undefined;
      const previous = prev ? { model: prev.model, dimensions: prev.dimensions } : null;
      const modelChanged = previous !== null && (previous.model !== spec.model || previous.dimensions !== spec.dimensions);
      const { exists } = await client.collectionExists(target);
      if (!exists) {
        await client.createCollection(target, { vectors: { size: spec.dimensions, distance: 'Cosine' } });
        for (const [field, schema] of [
          ['workspace_id', 'keyword'],
          ['item_id', 'keyword'],
          ['source', 'keyword'],
          ['type', 'keyword'],
          ['actor_names', 'keyword'],
          ['occurred_at', 'integer'],
        ] as const) {
          await client.createPayloadIndex(target, { field_name: field, field_schema: schema, wait: true });
        }
      }
      await client.upsert(REGISTRY, { wait: true, points: [{ id: pointId('active'), vector: [1], payload: { name: target, ...spec } }] });
      if (modelChanged && prev && prev.name !== target) await client.deleteCollection(prev.name);
      name = target;
      const state: CollectionState = { name: target, modelChanged, previous };
      return state;
    },
    async upsert(records: VectorRecord[]) {
      if (records.length === 0) return;
      await client.upsert(requireName(), {
        wait: true,
        points: records.map((r) => ({
          id: pointId(r.id),
          vector: r.vector,
          payload: {
            chunk_id: r.id,
            item_id: r.itemId,
            workspace_id: r.workspaceId,
            source: r.source,
            type: r.type,
            occurred_at: Date.parse(r.occurredAt),
            actor_names: r.actorNames,
            chunk0: r.id === r.itemId,
          },
        })),
      });
    },
    async deleteItems(workspaceId, itemIds) {
      if (itemIds.length === 0) return;
      await client.delete(requireName(), {
        wait: true,
        filter: { must: [{ key: 'workspace_id', match: { value: workspaceId } }, { key: 'item_id', match: { any: itemIds } }] },
      });
    },
    async search(vector, filter, k) {
      const res = await client.search(requireName(), { vector, limit: Math.max(1, k * 3), filter: toFilter(filter), with_payload: ['item_id'] });
      const best = new Map<string, number>();
      for (const p of res) {
        const itemId = String((p.payload as { item_id: string }).item_id);
        if ((best.get(itemId) ?? -2) < p.score) best.set(itemId, p.score);
      }
      const hits: VectorHit[] = [...best].map(([itemId, similarity]) => ({ itemId, similarity }));
      return hits.sort((a, b) => b.similarity - a.similarity).slice(0, k);
    },
    async getVectors(_workspaceId, itemIds) {
      if (itemIds.length === 0) return new Map();
      const points = await client.retrieve(requireName(), { ids: itemIds.map(pointId), with_vector: true, with_payload: ['item_id'] });
      return new Map(points.map((p) => [String((p.payload as { item_id: string }).item_id), Float32Array.from(p.vector as number[])]));
    },
    async count(workspaceId) {
      const res = await client.count(requireName(), { exact: true, filter: { must: [{ key: 'workspace_id', match: { value: workspaceId } }, { key: 'chunk0', match: { value: true } }] } });
      return res.count;
    },
    async healthy() {
      return client.getCollections().then(
        () => true,
        () => false,
      );
    },
    async close() {
      /* the REST client holds no sockets that need closing */
    },
  };
}
