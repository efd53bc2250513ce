import type { VectorFilter, VectorHit, VectorRecord } from './types.js';

/** A chunk as the memory index holds it: its filter fields and its vector scaled to unit length. */
interface Entry {
  id: string;
  itemId: string;
  workspaceId: string;
  source: string;
  type: string;
  occurredAt: number;
  actorNames: readonly string[];
  unit: Float32Array;
}

/** Row of a pgvector table as `load` reads it (`embedding::text` is pgvector's `[x,y,...]`). */
export interface StoredChunk {
  id: string;
  item_id: string;
  workspace_id: string;
  source: string;
  type: string;
  occurred_at: Date | string;
  actor_names: string[];
  embedding: string;
}

function toUnit(vector: ArrayLike<number>): Float32Array | null {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  if (norm === 0) return null;
  const scale = 1 / Math.sqrt(norm);
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! * scale;
  return out;
}

/**
 * An exact, in-memory mirror of one pgvector table for the embedded database (PGlite), where pgvector
 * runs as WebAssembly: scoring every chunk in JavaScript is faster than the SQL scan there, and exact
 * (9,425 chunks of 512 dims: about 8 ms a search against 50; loading, about 1 s once). Only a store that
 * is the table's sole writer may use it: PGlite has one owner process, and the store applies each write
 * here after the SQL write succeeds. Search gives what the SQL search gives (cosine similarity of each
 * item's best chunk, filtered the same way), without the SQL path's over-fetch cap.
 */
export function createMemoryIndex() {
  const entries: Entry[] = [];
  const position = new Map<string, number>();
  /** Chunk ids of each (workspace, item), so deleting an item does not scan every chunk. */
  const chunksOf = new Map<string, Set<string>>();
  const itemKey = (workspaceId: string, itemId: string): string => `${workspaceId}\u0000${itemId}`;

  const remove = (id: string): void => {
    const at = position.get(id);
    if (at === undefined) return;
    const gone = entries[at]!;
    const key = itemKey(gone.workspaceId, gone.itemId);
    const chunks = chunksOf.get(key);
    chunks?.delete(id);
    if (chunks?.size === 0) chunksOf.delete(key);
    const last = entries.pop()!;
    position.delete(id);
    if (at < entries.length) {
      entries[at] = last;
      position.set(last.id, at);
    }
  };

  const put = (entry: Omit<Entry, 'unit'>, vector: ArrayLike<number>): void => {
    const unit = toUnit(vector);
    remove(entry.id);
    // A zero vector has no direction (pgvector's cosine distance is NaN for it): it never matches.
    if (!unit) return;
    position.set(entry.id, entries.length);
    entries.push({ ...entry, unit });
    const key = itemKey(entry.workspaceId, entry.itemId);
    const chunks = chunksOf.get(key) ?? new Set<string>();
    chunks.add(entry.id);
    chunksOf.set(key, chunks);
  };

  return {
    get size(): number {
      return entries.length;
    },
    load(rows: readonly StoredChunk[]): void {
      for (const r of rows) {
        put(
          { id: r.id, itemId: r.item_id, workspaceId: r.workspace_id, source: r.source, type: r.type, occurredAt: new Date(r.occurred_at).getTime(), actorNames: r.actor_names },
          JSON.parse(r.embedding) as number[],
        );
      }
    },
    upsert(records: readonly VectorRecord[]): void {
      for (const r of records) {
        put({ id: r.id, itemId: r.itemId, workspaceId: r.workspaceId, source: r.source, type: r.type, occurredAt: Date.parse(r.occurredAt), actorNames: r.actorNames }, r.vector);
      }
    },
    deleteItems(workspaceId: string, itemIds: readonly string[]): void {
      for (const itemId of itemIds) for (const id of [...(chunksOf.get(itemKey(workspaceId, itemId)) ?? [])]) remove(id);
    },
    search(vector: readonly number[], filter: VectorFilter, k: number): VectorHit[] {
      const query = toUnit(vector);
      if (!query || k <= 0) return [];
      const sources = filter.sources?.length ? new Set(filter.sources) : null;
      const types = filter.types?.length ? new Set(filter.types) : null;
      const actors = filter.actorNames?.length ? new Set(filter.actorNames) : null;
      const from = filter.from ? Date.parse(filter.from) : -Infinity;
      const to = filter.to ? Date.parse(filter.to) : Infinity;
      const excluded = filter.excludeItemIds?.length ? new Set(filter.excludeItemIds) : null;
      const best = new Map<string, number>();
      const dims = query.length;
      for (const e of entries) {
        if (e.workspaceId !== filter.workspaceId) continue;
        if (sources && !sources.has(e.source)) continue;
        if (types && !types.has(e.type)) continue;
        if (e.occurredAt < from || e.occurredAt > to) continue;
        if (actors && !e.actorNames.some((a) => actors.has(a))) continue;
        if (excluded?.has(e.itemId)) continue;
        if (e.unit.length !== dims) continue;
        const dot = dotProduct(e.unit, query);
        const previous = best.get(e.itemId);
        if (previous === undefined || dot > previous) best.set(e.itemId, dot);
      }
      return topK(best, k);
    },
  };
}

export type MemoryIndex = ReturnType<typeof createMemoryIndex>;

/** Dot product of two equal-length vectors, four lanes at a time. */
function dotProduct(a: Float32Array, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length - (a.length % 4);
  for (let i = 0; i < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (let i = n; i < a.length; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + s2 + s3;
}

const byHit = (a: VectorHit, b: VectorHit): number => b.similarity - a.similarity || (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0);

/** The k best hits, best first (ties by item id): a bounded min-heap, so a search never sorts every item. */
function topK(best: ReadonlyMap<string, number>, k: number): VectorHit[] {
  const heap: VectorHit[] = [];
  // heap[0] is the worst kept hit: byHit(worse, better) > 0.
  const worse = (i: number, j: number): boolean => byHit(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number): void => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  for (const [itemId, similarity] of best) {
    const hit = { itemId, similarity };
    if (heap.length < k) {
      heap.push(hit);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (byHit(hit, heap[0]!) < 0) {
      heap[0] = hit;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && worse(l, m)) m = l;
        if (r < heap.length && worse(r, m)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
  }
  return heap.sort(byHit);
}
