/**
 * One retrieval path's candidates: item id -> a score in [0, 1] that means the same across queries, in the
 * path's order (a candidate's position in it is the one `PathSignals.at` reads).
 */
export interface PathResult {
  scores: ReadonlyMap<string, number>;
  ms: number;
  /** Per-candidate raw signals the reranker reads as features (BM25 per field, cosine ...). */
  signals?: PathSignals;
  /**
   * The read model's document ordinal of each id of `scores`, in the map's order, where the path has them
   * (lexical, entity): a hint that spares the pool a lookup by id (`changeRows` checks it).
   */
  docs?: readonly number[];
}

/**
 * A path's signals by candidate id. A `Map` is one; the lexical path keeps its own in a typed table and
 * makes a candidate's record only when asked (`LexicalSignals`). A record got is the caller's to keep.
 */
export interface PathSignals {
  get(id: string): Readonly<Record<string, number>> | undefined;
  /**
   * One signal of the candidate at `position` in the path's `scores`, with no lookup by id and no record
   * made: where a path keeps its signals by position (the lexical path's table). Pooling reads fusion's
   * evidence (proximity, term coverage) this way for every candidate, from the paths that have it.
   */
  at?(position: number, name: string): number | undefined;
}

/**
 * A path's scores as two arrays in the path's order, with a `Map` made only for a reader that looks a
 * candidate up by id. Pooling iterates them (`forEach`): the lexical path's 800 candidates a search were a
 * map built for that and dropped.
 */
export class RankedScores implements ReadonlyMap<string, number> {
  private byId: Map<string, number> | null = null;

  constructor(
    readonly ids: readonly string[],
    private readonly scoresInOrder: ArrayLike<number>,
  ) {}

  get size(): number {
    return this.ids.length;
  }

  forEach(fn: (value: number, id: string, map: ReadonlyMap<string, number>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.ids.length; i++) fn.call(thisArg, this.scoresInOrder[i]!, this.ids[i]!, this);
  }

  get(id: string): number | undefined {
    return this.map().get(id);
  }

  has(id: string): boolean {
    return this.map().has(id);
  }

  entries(): MapIterator<[string, number]> {
    return this.map().entries();
  }

  keys(): MapIterator<string> {
    return this.map().keys();
  }

  values(): MapIterator<number> {
    return this.map().values();
  }

  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.map()[Symbol.iterator]();
  }

  private map(): Map<string, number> {
    if (this.byId) return this.byId;
    const map = new Map<string, number>();
    for (let i = 0; i < this.ids.length; i++) map.set(this.ids[i]!, this.scoresInOrder[i]!);
    return (this.byId = map);
  }
}

export const emptyPath = (ms = 0): PathResult => ({ scores: new Map(), ms });

export async function timed(fn: () => Promise<Omit<PathResult, 'ms'>>): Promise<PathResult> {
  const started = performance.now();
  const res = await fn();
  return { ...res, ms: performance.now() - started };
}
