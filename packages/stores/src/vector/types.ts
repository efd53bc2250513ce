/** One embedded chunk. An item has one or more chunks; search returns items scored by their best chunk. */
export interface VectorRecord {
  /** `<itemId>` for chunk 0, `<itemId>#<n>` for the others. */
  id: string;
  itemId: string;
  workspaceId: string;
  vector: number[];
  /** Filter fields, copied from the item so filters apply inside retrieval, not after a top-k cut. */
  source: string;
  type: string;
  occurredAt: string;
  actorNames: string[];
}

export interface VectorFilter {
  workspaceId: string;
  sources?: string[];
  types?: string[];
  /** Lower-cased actor names/logins; an item matches when any of its actors is listed. */
  actorNames?: string[];
  from?: string;
  to?: string;
  excludeItemIds?: string[];
}

export interface VectorHit {
  itemId: string;
  /** Cosine similarity of the best chunk, in [-1, 1]. */
  similarity: number;
}

export interface CollectionSpec {
  model: string;
  dimensions: number;
}

export interface CollectionState {
  name: string;
  /** True when the configured model or dimension differs from the one the stored vectors were made with. */
  modelChanged: boolean;
  previous: CollectionSpec | null;
}

export interface VectorStore {
  readonly kind: 'pgvector' | 'qdrant';
  /**
   * Opens the collection for this model; a different model or dimension than the stored one switches
   * to a fresh collection (never mixing two models) and reports `modelChanged` so callers re-embed.
   */
  ensureCollection(spec: CollectionSpec): Promise<CollectionState>;
  upsert(records: VectorRecord[]): Promise<void>;
  /** Removes every chunk of these items. */
  deleteItems(workspaceId: string, itemIds: string[]): Promise<void>;
  search(vector: number[], filter: VectorFilter, k: number): Promise<VectorHit[]>;
  /**
   * Chunk-0 vector of each item, for find-similar and clustering, as the store keeps it (32-bit floats): a
   * re-cluster reads every item's, and a typed array's values live in one buffer outside the heap, where a
   * number[] is a heap object the garbage collector copies and scans.
   */
  getVectors(workspaceId: string, itemIds: string[]): Promise<Map<string, Float32Array>>;
  /**
   * Where an in-memory mirror holds these items' chunk-0 vectors: its shared matrix of 16-bit rows and their rows,
   * to be read in place (a re-cluster at 100k items held a copy of every vector); null without a mirror.
   * Omitted by stores with no mirror.
   */
  sharedRows?(workspaceId: string, itemIds: string[]): SharedRows | null;
  /** Whether a row given under `stamp` by `sharedRows` may no longer hold its item's vector. */
  sharedRowsChanged?(workspaceId: string, stamp: SharedRowsStamp): boolean;
  count(workspaceId: string): Promise<number>;
  healthy(): Promise<boolean>;
  /** Waits for an in-memory mirror of the store to load; false when searches use the store itself. Omitted by stores with no mirror. */
  memoryReady?(): Promise<boolean>;
  close(): Promise<void>;
}

/** Where `sharedRows` was read: opaque, for `sharedRowsChanged`. */
export type SharedRowsStamp = object;

/** Items' chunk-0 rows in a workspace's shared matrix (`sharedRows`). */
export interface SharedRows {
  /** The matrix: unit rows of `dimensions` values on a SharedArrayBuffer, each value `unit` x the integer held. */
  data: Int16Array;
  unit: number;
  dimensions: number;
  /** Item i's chunk-0 row, -1 where the mirror holds none. */
  rows: Int32Array;
  stamp: SharedRowsStamp;
}
