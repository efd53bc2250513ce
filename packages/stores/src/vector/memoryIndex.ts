import { exactSearch, MetricKind, type Matches } from 'usearch';
import { Interner } from '../interner.js';
import { ChunkGraph, GRAPH_BUILD_SLICE, GRAPH_MIN_ROWS, GRAPH_OVERFETCH } from './graph.js';
import { decodeRow, encodeRow, ROW_UNIT, rowScorer } from './rows.js';
import { runningEpoch, scanShared } from './scanThread.js';
import type { SharedRows, SharedRowsStamp, VectorFilter, VectorHit, VectorRecord } from './types.js';

/** A chunk as the memory index holds it: its filter fields and its row in its workspace's matrix. */
interface Entry {
  id: string;
  itemId: string;
  workspaceId: string;
  source: string;
  type: string;
  occurredAt: number;
  actorNames: readonly string[];
  row: number;
  /** The chunk's number in its workspace's graph: never reused, so a stale graph hit is never mistaken for another chunk. */
  key: number;
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
 * Address space reserved for a matrix to grow into in place (pages are committed only as rows are
 * written): 512 MiB of 16-bit rows (500k chunks of 512 dimensions), 256 MiB of int8 ones. Growing a 100k x
 * 512 matrix by copying it into a new array held the event loop for 1-3 s (mostly page faults on the new
 * array), long enough for `/healthz` to miss its second during an import. Past its reservation a matrix
 * is copied once into one reserving 4x its size. Reservations stay modest so that many workspaces fit in
 * a process's address space.
 */
const ROW_RESERVE = 2 ** 29;
const INT8_RESERVE = 2 ** 28;

/**
 * A 16-bit array of `length` values (`rows.ts`) on a growable shared buffer, so the scan thread scores a
 * search's candidates on the rows themselves, without a copy. The view has a fixed length, and growing the
 * buffer makes a new one (`resize`): V8 reads and writes a length-tracking view of a growable shared buffer
 * ~20x slower than a plain array (a filtered search at 100k items scored its ~50k rows in JavaScript in
 * ~520 ms); a fixed-length one as fast.
 */
function growableRows(length: number, reserve = ROW_RESERVE): Int16Array {
  return new Int16Array(new SharedArrayBuffer(length * 2, { maxByteLength: Math.max(reserve, length * 2) }), 0, length);
}

/** An int8 array the scan thread can read without a copy, on a growable shared buffer (a fixed-length view, as `growableRows`). */
function sharedInt8(length: number, reserve = INT8_RESERVE): Int8Array {
  return new Int8Array(new SharedArrayBuffer(length, { maxByteLength: Math.max(reserve, length) }), 0, length);
}

/**
 * Below this many chunks a workspace is scored in JavaScript. From it, an unfiltered search first scans an
 * int8 copy of the matrix with usearch's native SIMD kernel, on the scan thread (a quarter of float32's
 * memory traffic: 5.4 ms against 19.6 ms for 100k x 512 here), for QUANTIZED_OVERFETCH times the chunks it
 * wants, then scores those candidates exactly on the 16-bit rows: the same hits and similarities as an exact
 * scan whenever the true best chunks are among the candidates (all of them, in our trials). The 16-bit rows
 * are scanned whole (converted a block at a time: `rows.ts`) only while the int8 copy is being built, or when
 * the candidates would be most of the rows.
 */
const NATIVE_MIN_ROWS = 4_096;
const QUANTIZED_OVERFETCH = 4;
const QUANTIZED_MIN_CANDIDATES = 1_024;

/** Values quantized between yields when the int8 matrix is built ahead of use (`warm`): ~10 ms of work. */
const WARM_SLICE = 1 << 20;

/**
 * How a matrix grows when full: by half again, in place within its reservation. The margin's pages are
 * only touched (made resident) as rows arrive, so a margin no row reached costs address space, not memory.
 */
const GROWTH = 1.5;

/** An int8 copy of a matrix's 16-bit rows: their integers x scale, rounded; `wide` once a value did not fit (then clamped). */
interface Int8Copy {
  q8: Int8Array;
  scale: number;
  wide: boolean;
}

/** One workspace's unit vectors, one contiguous row-major matrix of 16-bit rows (swap-removed: `rows.ts`), and their entries. */
class WorkspaceMatrix {
  data: Int16Array;
  readonly entries: Entry[] = [];
  /** Each row's chunk key (`entries[row].key`; -1 past the last row), for the check of a scan thread's answer (`holds`). */
  private keyOfRow = new Float64Array(256).fill(-1);
  /** The int8 copy of `data` (row for row) once the matrix is large enough; `wide`: rebuilt before it is used again. */
  private copy: Int8Copy | null = null;
  /** The copy being built in the background, and how far it has got. */
  private building: (Int8Copy & { done: number }) | null = null;
  private rebuild: Promise<void> | null = null;
  /**
   * Bumped whenever a row's values may change under a reader that holds the matrix (a scan off this thread,
   * `sharedRows`): a removal (it moves the last row into the hole, or frees the last row for the next chunk)
   * and a copy of the rows into a larger buffer (rows written after it are not in the old one).
   */
  generation = 0;
  /** The approximate graph of a large matrix (`graph.ts`), being built or ready; its chunks by key. */
  graph: ChunkGraph | null = null;
  private readonly byKey = new Map<number, Entry>();
  private graphBuild: Promise<void> | null = null;
  /** Chunks written, moved and removed since the graph last heard (`flushGraph`): one message a write, not one a chunk. */
  private graphAdds: { entry: Entry; unit: Float32Array }[] = [];
  private graphMoves = new Set<Entry>();
  private graphRemovals: number[] = [];
  /** Searches answered through the graph, and those whose chunks were scored here rather than on the scan thread. */
  graphSearches = 0;
  graphScoredHere = 0;

  constructor(
    readonly dims: number,
    private readonly graphMinRows = GRAPH_MIN_ROWS,
  ) {
    this.data = growableRows(dims * 256);
  }

  /**
   * Sends the graph the chunks written, moved and removed since it last heard: additions (at their rows
   * now), then the rows of chunks a removal moved, then removals (a key is never reused).
   */
  flushGraph(): void {
    const graph = this.graph;
    if (graph && this.graphAdds.length > 0) {
      const vectors = new Float32Array(this.graphAdds.length * this.dims);
      this.graphAdds.forEach((a, i) => vectors.set(a.unit, i * this.dims));
      graph.add(
        this.graphAdds.map((a) => a.entry.key),
        this.graphAdds.map((a) => a.entry.row),
        vectors,
      );
    }
    if (graph && this.graphMoves.size > 0) {
      const moved = [...this.graphMoves].filter((e) => this.byKey.get(e.key) === e);
      if (moved.length > 0) graph.move(moved.map((e) => e.key), moved.map((e) => e.row));
    }
    if (graph && this.graphRemovals.length > 0) graph.remove(this.graphRemovals);
    this.graphAdds = [];
    this.graphMoves.clear();
    this.graphRemovals = [];
  }

  /**
   * Starts building the graph in the background once the matrix is large enough (or its graph holds too
   * many removed chunks): the rows there now are added in slices that yield, and rows pushed meanwhile
   * are added as they come. Searches scan exactly until it is ready.
   */
  ensureGraph(): void {
    if (this.graphBuild || this.rows < this.graphMinRows || (this.graph && !this.graph.stale)) return;
    // No scan thread to hold it (it could not start): the exact scans serve every search.
    if (runningEpoch() === null) return;
    this.graph?.drop();
    const graph = new ChunkGraph(this.dims);
    this.graph = graph;
    this.byKey.clear();
    const pending = this.entries.slice();
    this.graphBuild = (async () => {
      for (let start = 0; start === 0 || (start < pending.length && this.graph === graph); start += GRAPH_BUILD_SLICE) {
        const keys: number[] = [];
        const rows: number[] = [];
        const vectors = new Float32Array(GRAPH_BUILD_SLICE * this.dims);
        for (const entry of pending.slice(start, start + GRAPH_BUILD_SLICE)) {
          // Removed since the build began (its row now holds another chunk, or none).
          if (this.entries[entry.row] !== entry) continue;
          decodeRow(this.data, entry.row * this.dims, this.dims, vectors, keys.length * this.dims);
          keys.push(entry.key);
          rows.push(entry.row);
          this.byKey.set(entry.key, entry);
        }
        await graph.build(keys, rows, vectors.slice(0, keys.length * this.dims), start === 0);
      }
      if (this.graph === graph) {
        graph.finish();
        // Unfiltered searches now go through the graph: the int8 copy (half the 16-bit rows: 52 MB at
        // 100k items) is dropped, and built again in the background should the graph go stale or be lost.
        if (graph.ready) this.copy = null;
      }
    })().finally(() => {
      this.graphBuild = null;
    });
  }

  /**
   * About the `want` rows nearest to `query` by the graph, scored exactly (on the 16-bit rows) and best first; null
   * while no graph is ready (or it failed: the caller scans exactly).
   */
  async graphNearest(query: Float32Array, want: number): Promise<{ rows: ArrayLike<number>; distances: ArrayLike<number> } | null> {
    const graph = this.graph;
    if (!graph?.ready) return null;
    const found = await graph.search(query, want * GRAPH_OVERFETCH, want, { data: this.data.buffer as SharedArrayBuffer, want }).catch(() => null);
    if (!found) return null;
    this.graphSearches++;
    // Scored on the scan thread, at the rows it knew for the chunks' keys: kept when every one of those
    // chunks is still at that row (a chunk holds its row until it is removed or a removal moves it, and a
    // key is never reused, so its row held its vector throughout). Under 16 clients at 100k items the
    // copy and the scan here were ~4% of the event loop.
    if (found.fine && this.holds(found.fine)) return found.fine;
    this.graphScoredHere++;
    // Else scored here, on the rows as they are now (a chunk removed meanwhile is not found by its key), by
    // the native kernel on a float32 copy of the rows (a JavaScript loop over them cost ~4 ms, through the
    // length-tracking view the matrix then had).
    const rows: number[] = [];
    for (const key of found.keys) {
      const entry = this.byKey.get(key);
      if (entry) rows.push(entry.row);
    }
    return rows.length === 0 ? { rows: [], distances: [] } : scorer.rescore(this.data, this.dims, rows, query, want);
  }

  /**
   * Whether each chunk a scan thread scored (`keys`) is still at the row it was scored at. A key is never
   * reused, and a chunk's row changes only when a removal moves it to a lower row, never back: a chunk at
   * its scored row now was there throughout. One read of a typed array a chunk (entries and the graph's
   * key map were three dependent reads a chunk, ~3% of the event loop under 16 clients at 100k items).
   */
  private holds(found: { rows: ArrayLike<number>; keys?: ArrayLike<number> }): boolean {
    const { keys, rows } = found;
    if (!keys || keys.length !== rows.length) return false;
    const keyOfRow = this.keyOfRow;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (!(row >= 0 && row < keyOfRow.length) || keyOfRow[row] !== keys[i]) return false;
    }
    return true;
  }

  /**
   * The int8 matrix, or null while it is (re)built in the background (the caller then scans the 16-bit
   * rows, exactly). Built at once, it held the event loop ~1.9 s at 100k x 512 on a 2-core VM: on the first
   * search after a restart, and during imports whenever a row arrived that did not fit the scale.
   */
  quantized(): Int8Array | null {
    if (this.copy && !this.copy.wide) return this.copy.q8;
    this.rebuild ??= this.build().finally(() => {
      this.rebuild = null;
      this.building = null;
    });
    return null;
  }

  /** Builds the int8 matrix ahead of the first search that needs it (after a load), yielding as it goes. */
  async warm(): Promise<void> {
    if (this.rows < NATIVE_MIN_ROWS) return;
    while (!this.graph?.ready && !this.quantized()) await this.rebuild;
  }

  /**
   * Quantizes every row in slices of WARM_SLICE values, yielding between them. Rows written meanwhile
   * behind the slices are quantized into the new copy as they are written (`syncBuilding`); rows ahead of
   * them are read when the slices get there. A value that does not fit the scale leaves the copy stale.
   */
  private async build(): Promise<void> {
    let max = 0;
    const used = this.rows * this.dims;
    for (let start = 0; start < used; start += WARM_SLICE) {
      const data = this.data;
      for (let i = start, end = Math.min(used, start + WARM_SLICE, data.length); i < end; i++) max = Math.max(max, Math.abs(data[i]!));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const building = { q8: sharedInt8(this.data.length), scale: max > 0 ? 127 / max : 1, done: 0, wide: false };
    this.building = building;
    while (building.done < this.rows * this.dims) {
      const end = Math.min(this.rows * this.dims, building.done + WARM_SLICE);
      this.quantizeInto(building, building.done, end);
      building.done = end;
      if (building.done < this.rows * this.dims) await new Promise((resolve) => setImmediate(resolve));
    }
    if (building.q8.length < this.data.length) building.q8 = this.growInt8(building.q8, this.data.length, building.done);
    // A graph that became ready meanwhile answers instead.
    if (!this.graph?.ready) this.copy = { q8: building.q8, scale: building.scale, wide: building.wide };
  }

  /** Quantizes values [from, to) into `target` at its scale; a value that does not fit marks it `wide`. */
  private quantizeInto(target: Int8Copy, from: number, to: number): void {
    if (target.q8.length < to) target.q8 = this.growInt8(target.q8, this.data.length, from);
    const { data } = this;
    for (let i = from; i < to; i++) {
      const q = Math.round(data[i]! * target.scale);
      if (q > 127 || q < -127) target.wide = true;
      target.q8[i] = Math.max(-127, Math.min(127, q));
    }
  }

  /** A row written behind the background build's slices: quantized into the new copy now. */
  private syncBuilding(row: number): void {
    const b = this.building;
    if (b && row * this.dims < b.done) this.quantizeInto(b, row * this.dims, (row + 1) * this.dims);
  }

  /** An int8 array of at least `length` values holding `q`'s first `used`: grown in place within its reservation, else copied. */
  private growInt8(q: Int8Array, length: number, used: number): Int8Array {
    const shared = q.buffer as SharedArrayBuffer;
    if (shared.growable && length <= shared.maxByteLength) {
      shared.grow(length);
      return new Int8Array(shared, 0, length);
    }
    const next = sharedInt8(length, 4 * length);
    next.set(q.subarray(0, used));
    return next;
  }

  private quantizeRow(row: number): void {
    this.syncBuilding(row);
    if (this.copy) this.quantizeInto(this.copy, row * this.dims, (row + 1) * this.dims);
  }

  get rows(): number {
    return this.entries.length;
  }

  push(entry: Entry, unit: Float32Array): void {
    const row = this.entries.length;
    if ((row + 1) * this.dims > this.data.length) this.resize(Math.ceil((row + 1) * GROWTH) * this.dims);
    encodeRow(unit, this.data, row * this.dims);
    entry.row = row;
    this.entries.push(entry);
    if (row >= this.keyOfRow.length) {
      const grown = new Float64Array(Math.max(2 * this.keyOfRow.length, row + 1)).fill(-1);
      grown.set(this.keyOfRow);
      this.keyOfRow = grown;
    }
    this.keyOfRow[row] = entry.key;
    this.quantizeRow(row);
    if (this.graph) {
      this.graphAdds.push({ entry, unit });
      this.byKey.set(entry.key, entry);
    }
  }

  /**
   * Makes room for `length` values, keeping every row: in place within the buffers' reservations (shared
   * buffers only grow: the pages of a margin no row was written to are never committed), else by copying
   * into larger ones.
   */
  private resize(length: number): void {
    const used = this.rows * this.dims;
    const buffer = this.data.buffer as SharedArrayBuffer;
    if (buffer.growable && length * 2 <= buffer.maxByteLength) {
      buffer.grow(length * 2);
      this.data = new Int16Array(buffer, 0, length);
    } else {
      const next = growableRows(length, Math.min(2 ** 53, 4 * length * 2));
      next.set(this.data.subarray(0, used));
      this.data = next;
      this.generation++;
    }
    if (this.copy && this.copy.q8.length < length) this.copy.q8 = this.growInt8(this.copy.q8, length, used);
  }

  /** Removes a row by moving the last row into its place. */
  remove(entry: Entry): void {
    this.generation++;
    if (this.graph && this.byKey.delete(entry.key)) this.graphRemovals.push(entry.key);
    const last = this.entries.pop()!;
    this.keyOfRow[last.row] = -1;
    if (last !== entry) {
      if (this.graph && this.byKey.get(last.key) === last) this.graphMoves.add(last);
      this.data.copyWithin(entry.row * this.dims, last.row * this.dims, (last.row + 1) * this.dims);
      this.copy?.q8.copyWithin(entry.row * this.dims, last.row * this.dims, (last.row + 1) * this.dims);
      last.row = entry.row;
      this.entries[entry.row] = last;
      this.keyOfRow[entry.row] = last.key;
      this.syncBuilding(entry.row);
    }
  }

  /** Bytes of the 16-bit rows and of their int8 copy, as grown (pages no row reached are not resident). */
  get bytes(): { rows: number; int8: number } {
    return { rows: this.data.byteLength, int8: this.copy?.q8.byteLength ?? 0 };
  }

  dot(row: number, query: Float32Array): number {
    return dotProduct(this.data, row * this.dims, query) * ROW_UNIT;
  }
}

/**
 * An exact, in-memory mirror of one pgvector table for the embedded database (PGlite), where pgvector
 * runs as WebAssembly: scoring every chunk here is faster than the SQL scan there, and exact to within the
 * 16-bit rows' rounding (`rows.ts`: a similarity moves by about 1e-5). Each workspace's vectors sit in one
 * contiguous matrix: an unfiltered search scans it with usearch's native SIMD kernel (about 3.5x the
 * JavaScript loop), a filtered one scores the rows that pass the filter in JavaScript. Only a store that is
 * the table's sole writer may use it: PGlite has one owner process, and the store applies each write here
 * after the SQL write succeeds. Search gives what the SQL search gives (cosine similarity of each item's
 * best chunk, filtered the same way), without the SQL path's over-fetch cap.
 */
export function createMemoryIndex(options: { graphMinRows?: number } = {}) {
  const workspaces = new Map<string, WorkspaceMatrix>();
  let nextKey = 0;
  const position = new Map<string, Entry>();
  /**
   * Chunk ids of each item by workspace, so deleting an item does not scan every chunk: the id itself for
   * an item of one chunk (most), else an array (a Set an item was ~110 bytes each of 100k, and a key made
   * of workspace and item another ~60).
   */
  const chunksOf = new Map<string, Map<string, string | string[]>>();
  // An item's array is never changed in place (`remove` and `put` set a new one), so callers may remove
  // chunks while they iterate it.
  const chunkIds = (workspaceId: string, itemId: string): readonly string[] => {
    const ids = chunksOf.get(workspaceId)?.get(itemId);
    return ids === undefined ? [] : typeof ids === 'string' ? [ids] : ids;
  };

  const remove = (id: string): void => {
    const gone = position.get(id);
    if (!gone) return;
    position.delete(id);
    const items = chunksOf.get(gone.workspaceId);
    const chunks = items?.get(gone.itemId);
    if (typeof chunks === 'string') items!.delete(gone.itemId);
    else if (chunks) {
      const left = chunks.filter((c) => c !== id);
      items!.set(gone.itemId, left.length === 1 ? left[0]! : left);
    }
    workspaces.get(gone.workspaceId)?.remove(gone);
  };

  /** What a write changed, sent to the graphs (one message per graph and write). */
  const flushGraphs = (): void => {
    for (const matrix of workspaces.values()) matrix.flushGraph();
  };

  // One copy of each workspace id, source, type and list of actor names: each row read brings its own
  // copies (~20 MB of the event loop's heap at 100k chunks).
  const interned = new Interner();

  const put = (entry: Omit<Entry, 'row' | 'key'>, vector: ArrayLike<number>): WorkspaceMatrix | undefined => {
    const unit = toUnit(vector);
    remove(entry.id);
    // A zero vector has no direction (pgvector's cosine distance is NaN for it): it never matches.
    if (!unit) return undefined;
    let matrix = workspaces.get(entry.workspaceId);
    if (!matrix || (matrix.dims !== unit.length && matrix.rows === 0)) {
      matrix = new WorkspaceMatrix(unit.length, options.graphMinRows);
      workspaces.set(entry.workspaceId, matrix);
    }
    if (matrix.dims !== unit.length) return undefined;
    const full: Entry = {
      ...entry,
      // An item's first chunk has the item's id: one string for both (each row read brings two).
      itemId: entry.itemId === entry.id ? entry.id : entry.itemId,
      workspaceId: interned.string(entry.workspaceId),
      source: interned.string(entry.source),
      type: interned.string(entry.type),
      actorNames: interned.list(entry.actorNames),
      row: -1,
      key: nextKey++,
    };
    matrix.push(full, unit);
    position.set(entry.id, full);
    let items = chunksOf.get(entry.workspaceId);
    if (!items) chunksOf.set(entry.workspaceId, (items = new Map()));
    const chunks = items.get(full.itemId);
    // `remove` above took this id out of the item's chunks if it was there.
    items.set(full.itemId, chunks === undefined ? full.id : typeof chunks === 'string' ? [chunks, full.id] : [...chunks, full.id]);
    return matrix;
  };

  return {
    get size(): number {
      return position.size;
    },
    load(rows: readonly StoredChunk[]): void {
      for (const r of rows) {
        put(
          { id: r.id, itemId: r.item_id, workspaceId: r.workspace_id, source: r.source, type: r.type, occurredAt: new Date(r.occurred_at).getTime(), actorNames: r.actor_names },
          JSON.parse(r.embedding) as number[],
        );
      }
      flushGraphs();
    },
    /**
     * Builds what the first search would otherwise build (each large matrix's int8 copy), yielding as it
     * goes, and starts building the graphs of the largest in the background (searches scan exactly meanwhile).
     */
    async warm(): Promise<void> {
      for (const matrix of [...workspaces.values()]) await matrix.warm();
      for (const matrix of workspaces.values()) matrix.ensureGraph();
    },
    upsert(records: readonly VectorRecord[]): void {
      const touched = new Set<WorkspaceMatrix>();
      for (const r of records) {
        const matrix = put({ id: r.id, itemId: r.itemId, workspaceId: r.workspaceId, source: r.source, type: r.type, occurredAt: Date.parse(r.occurredAt), actorNames: r.actorNames }, r.vector);
        if (matrix) touched.add(matrix);
      }
      flushGraphs();
      for (const matrix of touched) matrix.ensureGraph();
    },
    /** What the workspaces' matrices hold, summed (`WorkspaceMatrix.bytes`). */
    memory(): { rowBytes: number; int8Bytes: number } {
      let rowBytes = 0;
      let int8Bytes = 0;
      for (const matrix of workspaces.values()) {
        rowBytes += matrix.bytes.rows;
        int8Bytes += matrix.bytes.int8;
      }
      return { rowBytes, int8Bytes };
    },
    /** Whether unfiltered searches of the workspace go through its graph (a large matrix's, once built). */
    graphReady(workspaceId: string): boolean {
      return workspaces.get(workspaceId)?.graph?.ready ?? false;
    },
    /** Searches of the workspace's graph so far, and how many of them had their chunks scored on this thread. */
    graphSearches(workspaceId: string): { searches: number; scoredHere: number } {
      const matrix = workspaces.get(workspaceId);
      return { searches: matrix?.graphSearches ?? 0, scoredHere: matrix?.graphScoredHere ?? 0 };
    },
    /**
     * The stored vectors of chunks with these ids (chunk 0 of an item has the item's id) in the workspace,
     * as unit vectors: a chunk it holds no row for (none stored, or a zero vector) is absent.
     */
    vectorsOf(workspaceId: string, ids: readonly string[]): Map<string, Float32Array> {
      const out = new Map<string, Float32Array>();
      const matrix = workspaces.get(workspaceId);
      if (!matrix) return out;
      for (const id of ids) {
        const entry = position.get(id);
        if (entry?.workspaceId === workspaceId) out.set(id, decodeRow(matrix.data, entry.row * matrix.dims, matrix.dims));
      }
      return out;
    },
    /**
     * The workspace's matrix itself (16-bit unit rows on a shared buffer, readable from any thread without a
     * copy) and each item's chunk-0 row in it (-1: none), with a stamp that `sharedRowsChanged` compares: a
     * reader that saw the stamp unchanged after reading knows every row it read held that item's vector.
     */
    sharedRows(workspaceId: string, itemIds: readonly string[]): SharedRows | null {
      const matrix = workspaces.get(workspaceId);
      if (!matrix) return null;
      const rows = new Int32Array(itemIds.length).fill(-1);
      itemIds.forEach((id, i) => {
        const entry = position.get(id);
        if (entry?.workspaceId === workspaceId) rows[i] = entry.row;
      });
      return { data: matrix.data, unit: ROW_UNIT, dimensions: matrix.dims, rows, stamp: { matrix, generation: matrix.generation } };
    },
    /** Whether a row read under `stamp` (`sharedRows`) may have changed since, or the matrix been replaced. */
    sharedRowsChanged(workspaceId: string, stamp: SharedRowsStamp): boolean {
      const matrix = workspaces.get(workspaceId);
      const seen = stamp as { matrix: WorkspaceMatrix; generation: number };
      return !matrix || matrix !== seen.matrix || matrix.generation !== seen.generation;
    },
    /**
     * Makes these items' chunks in the workspace exactly `rows` (read from the table: an item without
     * rows is gone), in one step a search cannot fall between: how a follower of another process's
     * writes applies them.
     */
    replaceItems(workspaceId: string, itemIds: readonly string[], rows: readonly StoredChunk[]): void {
      for (const itemId of itemIds) for (const id of chunkIds(workspaceId, itemId)) remove(id);
      const touched = new Set<WorkspaceMatrix>();
      for (const r of rows) {
        const matrix = put(
          { id: r.id, itemId: r.item_id, workspaceId: r.workspace_id, source: r.source, type: r.type, occurredAt: new Date(r.occurred_at).getTime(), actorNames: r.actor_names },
          JSON.parse(r.embedding) as number[],
        );
        if (matrix) touched.add(matrix);
      }
      flushGraphs();
      for (const matrix of touched) matrix.ensureGraph();
    },
    deleteItems(workspaceId: string, itemIds: readonly string[]): void {
      for (const itemId of itemIds) for (const id of chunkIds(workspaceId, itemId)) remove(id);
      flushGraphs();
    },
    async search(vector: readonly number[], filter: VectorFilter, k: number): Promise<VectorHit[]> {
      const query = toUnit(vector);
      const matrix = workspaces.get(filter.workspaceId);
      if (!query || k <= 0 || !matrix || matrix.dims !== query.length) return [];
      const narrowed = Boolean(filter.sources?.length || filter.types?.length || filter.actorNames?.length || filter.from || filter.to || filter.excludeItemIds?.length);
      if (!narrowed && matrix.rows >= NATIVE_MIN_ROWS) return nativeSearch(matrix, query, k);
      const admits = entryFilter(filter);
      if (matrix.rows >= NATIVE_MIN_ROWS) {
        // A filter most chunks pass: the unfiltered ranking (off the event loop), read until k items pass.
        let passing = 0;
        for (const e of matrix.entries) if (admits(e)) passing++;
        if (passing === 0) return [];
        if (passing >= matrix.rows * NATIVE_FILTERED_MIN_SHARE) return nativeSearch(matrix, query, k, admits, passing / matrix.rows);
      }
      const best = new Map<string, number>();
      for (const e of matrix.entries) {
        if (!admits(e)) continue;
        const dot = matrix.dot(e.row, query);
        const previous = best.get(e.itemId);
        if (previous === undefined || dot > previous) best.set(e.itemId, dot);
      }
      return topK(best, k);
    },
  };
}

/** Whether a chunk passes a search's filter. */
function entryFilter(filter: VectorFilter): (e: Entry) => boolean {
  const sources = filter.sources?.length ? new Set(filter.sources) : null;
  const types = filter.types?.length ? new Set(filter.types) : null;
  const actors = filter.actorNames?.length ? new Set(filter.actorNames) : null;
  const from = filter.from ? Date.parse(filter.from) : -Infinity;
  const to = filter.to ? Date.parse(filter.to) : Infinity;
  const excluded = filter.excludeItemIds?.length ? new Set(filter.excludeItemIds) : null;
  return (e) =>
    (!sources || sources.has(e.source)) &&
    (!types || types.has(e.type)) &&
    e.occurredAt >= from &&
    e.occurredAt <= to &&
    (!actors || e.actorNames.some((a) => actors.has(a))) &&
    !excluded?.has(e.itemId);
}

/**
 * From this share of a large matrix's chunks passing a filter, a filtered search reads the unfiltered
 * ranking (the graph, or the int8 pre-scan, on the scan thread) until k items pass; below it, it scores the
 * passing rows in JavaScript on the event loop. At 100k items \`types: ["commit"]\` (half the chunks) took
 * ~130 ms a search that way.
 */
const NATIVE_FILTERED_MIN_SHARE = 0.2;

/**
 * The k best items by the native scan (of those `admits` passes, about `share` of the chunks): it returns
 * the best chunks, and an item may have several (and a filter leaves some out), so it asks for more chunks
 * until k distinct items are found (or all are). The best chunks that pass among the best `want` are the best
 * that pass overall: every chunk left out scores below them.
 */
async function nativeSearch(matrix: WorkspaceMatrix, query: Float32Array, k: number, admits?: (e: Entry) => boolean, share = 1): Promise<VectorHit[]> {
  for (let want = Math.min(matrix.rows, Math.ceil((k * 1.5) / share)); ; want = Math.min(matrix.rows, want * 4)) {
    // Read after the int8 scan's await: rows may have come and gone meanwhile.
    const found = (await matrix.graphNearest(query, want)) ?? (await quantizedScan(matrix, query, want));
    const rows = matrix.rows;
    const best = new Map<string, number>();
    for (let i = 0; i < found.rows.length; i++) {
      const entry = matrix.entries[found.rows[i]!]!;
      if (admits && !admits(entry)) continue;
      const similarity = 1 - found.distances[i]!;
      const previous = best.get(entry.itemId);
      if (previous === undefined || similarity > previous) best.set(entry.itemId, similarity);
    }
    if (best.size >= k || want >= rows) return topK(best, k);
  }
}

/**
 * Threads usearch scans with. Its default (0: every core) took as long on this 2-core machine as one
 * thread (260k x 512 int8: 17.0 against 16.2 ms) for twice the CPU, which concurrent searches and the
 * database thread then lacked.
 */
const SCAN_THREADS = 1;

/**
 * The `want` rows of a float32 matrix (`dims` a row) with the largest inner product with `query`, best
 * first, by usearch's native (SIMD) kernel, with their inner products in float32 arithmetic.
 */
export function topInnerProducts(data: Float32Array, query: Float32Array, dims: number, want: number): { rows: number[]; products: number[] } {
  const found = scan(data, query, dims, want);
  return { rows: found.rows, products: products(found.distances) };
}

/** A float32 array on a SharedArrayBuffer, for `topInnerProductsOffThread`. */
export function sharedFloats(length: number): Float32Array {
  return new Float32Array(new SharedArrayBuffer(length * 4));
}

/**
 * `topInnerProducts` on the scan thread, for a matrix on a SharedArrayBuffer (`sharedFloats`) that no
 * one writes while a scan runs; on this thread should the scan thread fail.
 */
export async function topInnerProductsOffThread(data: Float32Array, query: Float32Array, dims: number, want: number): Promise<{ rows: number[]; products: number[] }> {
  const rows = data.length / dims;
  if (!(data.buffer instanceof SharedArrayBuffer) || data.byteOffset !== 0) return topInnerProducts(data, query, dims, want);
  const found = await scanShared(data.buffer, rows, dims, query, Math.min(want, rows)).catch(() => null);
  if (!found) return topInnerProducts(data, query, dims, want);
  return { rows: numbers(found.rows), products: products(found.distances) };
}

/**
 * `topInnerProductsOffThread` for several queries (`queries` holds them row after row) in one message to the
 * scan thread: the `want` best rows of each, in the queries' order. Null when the scan thread cannot answer
 * (the caller scans per query instead).
 */
export async function topInnerProductsBatchOffThread(data: Float32Array, queries: Float32Array, dims: number, want: number): Promise<{ rows: number[]; products: number[] }[] | null> {
  const rows = data.length / dims;
  const count = Math.min(want, rows);
  const n = queries.length / dims;
  if (!(data.buffer instanceof SharedArrayBuffer) || data.byteOffset !== 0 || count === 0 || n < 1 || !Number.isInteger(n)) return null;
  const found = await scanShared(data.buffer, rows, dims, queries, count).catch(() => null);
  if (!found || found.rows.length !== n * count) return null;
  return Array.from({ length: n }, (_, q) => ({
    rows: numbers(found.rows.subarray(q * count, (q + 1) * count)),
    products: products(found.distances.subarray(q * count, (q + 1) * count)),
  }));
}

/**
 * A typed array's values as an array. `Array.from` of a typed array walks its iterator, an object a value: the
 * cluster step's first passes allocated 27 MB in 20 s that way during an import at 100k items.
 */
function numbers(values: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) out.push(values[i]!);
  return out;
}

/** Inner products from usearch's inner-product distances (1 - product). */
function products(distances: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < distances.length; i++) out.push(1 - distances[i]!);
  return out;
}

/** The `want` best rows of a float32 matrix by inner product (usearch's native kernel), best first. */
function scan(data: Float32Array, query: Float32Array, dims: number, want: number): { rows: number[]; distances: ArrayLike<number> } {
  const found = exactSearch(data, query, dims, want, MetricKind.IP, SCAN_THREADS) as Matches;
  return { rows: Array.from(found.keys, Number), distances: found.distances };
}

/**
 * The `want` best rows: the int8 matrix's best `want * QUANTIZED_OVERFETCH` rows (at least
 * QUANTIZED_MIN_CANDIDATES), found on the scan thread and scored again there with the float32 kernel on
 * the 16-bit rows (shared too). Should a row have moved meanwhile (a removal), the candidates are scored
 * again here on the rows as they are when the scan returns (a candidate past the last row is dropped).
 */
async function quantizedScan(matrix: WorkspaceMatrix, query: Float32Array, want: number): Promise<{ rows: ArrayLike<number>; distances: ArrayLike<number> }> {
  const dims = matrix.dims;
  const q8 = matrix.quantized();
  // No int8 copy yet, or one being rebuilt for a row that did not fit its scale: scan the 16-bit rows.
  if (!q8) return scorer.scan(matrix.data, dims, matrix.rows, query, want);
  const q = new Int8Array(dims);
  const qScale = 127 / Math.max(1e-12, ...Array.from(query, Math.abs));
  for (let i = 0; i < dims; i++) q[i] = Math.round(query[i]! * qScale);
  const scanned = matrix.rows;
  const count = Math.min(scanned, Math.max(want * QUANTIZED_OVERFETCH, QUANTIZED_MIN_CANDIDATES));
  if (count >= scanned) return scorer.scan(matrix.data, dims, scanned, query, want);
  const generation = matrix.generation;
  // Should the scan thread fail, this event loop scans the 16-bit rows, exactly: a native scan of the
  // shared int8 matrix here would fail the same way where the addon cannot read a SharedArrayBuffer.
  const coarse = await scanShared(q8.buffer as SharedArrayBuffer, scanned, dims, q, count, { data: matrix.data.buffer as SharedArrayBuffer, query, want }).catch(() => null);
  if (!coarse) return scorer.scan(matrix.data, dims, matrix.rows, query, want);
  // Rows only added since the scan began: every candidate is where it was, and was scored on its own row.
  if (coarse.fine && matrix.generation === generation) return coarse.fine;
  const rows = matrix.rows;
  const candidates = Array.from(coarse.rows).filter((row) => row < rows);
  return candidates.length === 0 ? { rows: [], distances: [] } : scorer.rescore(matrix.data, dims, candidates, query, want);
}

/** The event loop's scorer of 16-bit rows: for a scan across which rows moved, and the exact scans. */
const scorer = rowScorer({ exactSearch, MetricKind });

export type MemoryIndex = ReturnType<typeof createMemoryIndex>;

/** Dot product of the row of `a` at `offset` with `b`, four lanes at a time. */
function dotProduct(a: Int16Array, offset: number, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = b.length - (b.length % 4);
  for (let i = 0; i < n; i += 4) {
    s0 += a[offset + i]! * b[i]!;
    s1 += a[offset + i + 1]! * b[i + 1]!;
    s2 += a[offset + i + 2]! * b[i + 2]!;
    s3 += a[offset + i + 3]! * b[i + 3]!;
  }
  for (let i = n; i < b.length; i++) s0 += a[offset + i]! * b[i]!;
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
