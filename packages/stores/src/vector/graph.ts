import { graphAdd, graphDrop, graphMove, graphRemove, graphSearch, runningEpoch, threadEpoch, type GraphRescore, type ScanFound } from './scanThread.js';

let nextGraph = 1;

/**
 * An approximate nearest-neighbour graph (usearch's HNSW over int8 vectors) of one workspace's chunks,
 * for an unfiltered search of a large matrix: at 100k chunks of 512 dimensions the exact int8 scan cost
 * ~16 ms of a core a search under 16 clients, as much CPU as the rest of the search, where the graph
 * answers in about a millisecond. The graph lives on the scan thread (`scanThread.ts`); this is the event
 * loop's handle to it. Keys are the chunks' own numbers, never reused, so a key the graph returns after
 * its chunk was removed or replaced is simply not found by the caller. The thread also hears each chunk's
 * row of the matrix (as added, and as a removal moves it), so it can score a search's chunks exactly.
 */
export class ChunkGraph {
  readonly id = nextGraph++;
  /** The start of the scan thread that holds it (started here if none runs: every message goes to that one). */
  private readonly epoch = runningEpoch();
  /** Chunks added and not removed. */
  private live = 0;
  private removedSince = 0;
  private built = false;
  private failed = false;

  constructor(readonly dims: number) {}

  /** Built, and still held by the thread (a graph dies with the thread that held it). */
  get ready(): boolean {
    return this.built && !this.failed && threadEpoch() === this.epoch;
  }

  /** Not worth keeping: gone with its thread, or mostly removed chunks (a graph searches worse around them). */
  get stale(): boolean {
    return this.failed || threadEpoch() !== this.epoch || this.removedSince > Math.max(1_000, this.live / 4);
  }

  /** Adds the build's chunks (at `rows` of the matrix), the first call creating the graph; resolves once the thread has them. */
  async build(keys: readonly number[], rows: readonly number[], vectors: Float32Array, first: boolean): Promise<void> {
    this.live += keys.length;
    await graphAdd(this.id, this.dims, Float64Array.from(keys), Float64Array.from(rows), vectors, { acked: true, create: first }).catch(() => {
      this.failed = true;
    });
  }

  /** The build is over: searches may use the graph. */
  finish(): void {
    this.built = !this.failed;
  }

  /** Chunks written after the build began, one message for a write's chunks (`vectors` moves to the thread). */
  add(keys: readonly number[], rows: readonly number[], vectors: Float32Array): void {
    this.live += keys.length;
    graphAdd(this.id, this.dims, Float64Array.from(keys), Float64Array.from(rows), vectors, { acked: false }).catch(() => {
      this.failed = true;
    });
  }

  remove(keys: readonly number[]): void {
    this.live -= keys.length;
    this.removedSince += keys.length;
    graphRemove(this.id, Float64Array.from(keys)).catch(() => {
      this.failed = true;
    });
  }

  /** Chunks now at other rows of the matrix. */
  move(keys: readonly number[], rows: readonly number[]): void {
    graphMove(this.id, Float64Array.from(keys), Float64Array.from(rows)).catch(() => {
      this.failed = true;
    });
  }

  drop(): void {
    graphDrop(this.id).catch(() => undefined);
  }

  /**
   * Keys of (about) the `keep` chunks nearest to `query` by inner product among the graph's `count` nearest,
   * nearest first; with `rescore`, the best `rescore.want` of them scored on the 16-bit rows (`fine`).
   */
  search(query: Float32Array, count: number, keep: number, rescore?: GraphRescore): Promise<{ keys: Float64Array; fine?: ScanFound }> {
    return graphSearch(this.id, query, count, keep, rescore);
  }
}

/** Chunks from which a workspace's unfiltered searches go through its graph (below: the exact scans, under ~3 ms). */
export const GRAPH_MIN_ROWS = 50_000;
/**
 * A search asks the graph for this many times the chunks it wants and keeps the best by the graph's int8
 * distances, then scores those exactly: the graph's misses fall mostly at the tail of what it returns.
 */
export const GRAPH_OVERFETCH = 2;
/** Chunks sent to the thread at a time while a graph is built: ~25 ms of its work, so a search's scan waits for one slice at most. */
export const GRAPH_BUILD_SLICE = 128;
