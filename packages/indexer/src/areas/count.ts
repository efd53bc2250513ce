import type { AreaModelColumns } from '@engram/stores';
import { tokenize } from '@engram/text';

/** The whole workspace, as an area (the same value as `ROOT_AREA` in @engram/stores). */
const ROOT = '';

/** One page of changes: each one's title and the areas its files touch (`areasOfFiles`: distinct, never the root). */
export interface ChangePage {
  titles: string[];
  areas: string[][];
}

/**
 * The area model's rows, sorted as stored, column-wise: each area and each term named once, the rows
 * numbers into those names (typed arrays transfer to the main thread; a string per row did not: 1.5M
 * (term, area) rows at 100k items were 3M strings, ~100 MB copied onto the event loop in ~1.4 s).
 */
export interface AreaRows extends AreaModelColumns {
  areaNames: string[];
  areaChanges: Int32Array;
  termNames: string[];
  termOf: Int32Array;
  termArea: Int32Array;
  termChanges: Int32Array;
}

export interface AreaCounter {
  addPage(page: ChangePage): void;
  finish(): AreaRows;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Names numbered in the order they are first seen. */
class Names {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  /** Each id's place among the names in code-unit order. */
  ranks(): Int32Array {
    const order = Array.from(this.names.keys()).sort((a, b) => compare(this.names[a]!, this.names[b]!));
    const rank = new Int32Array(order.length);
    order.forEach((id, r) => (rank[id] = r));
    return rank;
  }
}

/**
 * How many changes' titles hold each term in each area: an open-addressing table of (area, term) pairs
 * in typed arrays, 12 bytes a slot, 53-80% of the slots used. A `Map` of term counts per area had the
 * compute thread at ~100 MB of heap at 100k items (1.5M pairs) for the minute the model took, on top of
 * everything a server under load holds then; on 3.2M pairs the counter's heap grew 254 MB with the maps
 * and 21 MB with this table (`bench/results/scale-2026-12-01-s43-account.md`).
 */
class PairCounts {
  private capacity = 4_096;
  private areas = new Int32Array(this.capacity).fill(-1);
  private terms = new Int32Array(this.capacity);
  private counts = new Int32Array(this.capacity);
  private size = 0;

  add(area: number, term: number): void {
    const { capacity } = this;
    for (let slot = pairHash(area, term) % capacity; ; slot = slot + 1 === capacity ? 0 : slot + 1) {
      const held = this.areas[slot]!;
      if (held === -1) {
        this.areas[slot] = area;
        this.terms[slot] = term;
        this.counts[slot] = 1;
        if (++this.size > capacity * MAX_LOAD) this.grow();
        return;
      }
      if (held === area && this.terms[slot] === term) {
        this.counts[slot]!++;
        return;
      }
    }
  }

  /** Every pair once, in no order. */
  forEach(visit: (area: number, term: number, count: number) => void): void {
    for (let slot = 0; slot < this.capacity; slot++) if (this.areas[slot]! !== -1) visit(this.areas[slot]!, this.terms[slot]!, this.counts[slot]!);
  }

  /** Gives the table's memory back (the counter is done with it). */
  release(): void {
    this.capacity = 0;
    this.areas = this.terms = this.counts = new Int32Array(0);
  }

  /** Half as large again (not twice: the table is most of the counter's memory, and the old one is held while it is copied). */
  private grow(): void {
    const { areas, terms, counts, capacity } = this;
    const next = Math.ceil(capacity * 1.5);
    this.capacity = next;
    this.areas = new Int32Array(next).fill(-1);
    this.terms = new Int32Array(next);
    this.counts = new Int32Array(next);
    for (let from = 0; from < capacity; from++) {
      const area = areas[from]!;
      if (area === -1) continue;
      let slot = pairHash(area, terms[from]!) % next;
      while (this.areas[slot]! !== -1) slot = slot + 1 === next ? 0 : slot + 1;
      this.areas[slot] = area;
      this.terms[slot] = terms[from]!;
      this.counts[slot] = counts[from]!;
    }
  }
}

/** Linear probing over a well-mixed hash stays short up to four fifths full. */
const MAX_LOAD = 0.8;

/** A 32-bit mix of the two ids (murmur3's finaliser over a multiplicative combination). */
function pairHash(area: number, term: number): number {
  let h = Math.imul(area, 0x9e3779b1) ^ Math.imul(term ^ 0x7f4a7c15, 0x85ebca6b);
  h ^= h >>> 16;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h >>> 0;
}

/**
 * Counts, per area, the changes touching it and how many of their titles hold each term. Areas only one
 * change touched are left out (they tell nothing about another change); the root is always kept, so an
 * empty workspace still has a row saying the model was built. Pure: runs inline or in the worker.
 *
 * Areas and terms are numbered as they come, and the (area, term) pairs counted in one table of typed
 * arrays (`PairCounts`). The rows are put in order (term, then area, by name) with typed arrays: at 100k
 * items (53k changes, 10.7k areas, 1.5M rows) a row per small array, sorted by comparing strings, held
 * ~225 MB more of the worker's heap and took 3.6 s.
 */
export function createAreaCounter(): AreaCounter {
  const areas = new Names();
  const terms = new Names();
  areas.id(ROOT);
  // By area id: the changes touching it.
  const changesIn: number[] = [0];
  const pairs = new PairCounts();
  const ids = new Set<number>();
  let changes = 0;
  return {
    addPage(page) {
      const count = (area: number): void => {
        changesIn[area] = (changesIn[area] ?? 0) + 1;
        for (const t of ids) pairs.add(area, t);
      };
      page.titles.forEach((title, i) => {
        changes++;
        ids.clear();
        for (const term of tokenize(title)) ids.add(terms.id(term));
        count(0);
        for (const area of page.areas[i] ?? []) if (area !== ROOT) count(areas.id(area));
      });
    },
    finish() {
      const areaRank = areas.ranks();
      const termRank = terms.ranks();
      // The areas kept, by name; `keptAt[a]` is area a's row (-1: left out).
      const kept = changesIn.flatMap((n, a) => (n >= 2 || a === 0 ? [a] : [])).sort((a, b) => areaRank[a]! - areaRank[b]!);
      const keptAt = new Int32Array(changesIn.length).fill(-1);
      kept.forEach((a, row) => (keptAt[a] = row));

      // Rows placed by term (a counting sort over the terms' ranks), then each term's rows sorted by area.
      const perTerm = new Int32Array(termRank.length + 1);
      pairs.forEach((a, t) => {
        if (keptAt[a]! >= 0) perTerm[termRank[t]! + 1]!++;
      });
      for (let r = 1; r < perTerm.length; r++) perTerm[r]! += perTerm[r - 1]!;
      const total = perTerm[termRank.length]!;
      // A row's area row and count in one number (area row * scale + count; a count is at most `changes`),
      // so a term's rows sort natively.
      const scale = 2 ** Math.ceil(Math.log2(changes + 1));
      if (kept.length * scale > Number.MAX_SAFE_INTEGER) throw new Error(`area model: ${kept.length} areas of ${changes} changes do not fit its row keys`);
      const packed = new Float64Array(total);
      const next = perTerm.slice(0, termRank.length);
      pairs.forEach((a, t, n) => {
        if (keptAt[a]! >= 0) packed[next[termRank[t]!]!++] = keptAt[a]! * scale + n;
      });
      pairs.release();
      const termOf = new Int32Array(total);
      const termArea = new Int32Array(total);
      const termChanges = new Int32Array(total);
      for (let r = 0; r < termRank.length; r++) {
        const start = perTerm[r]!;
        const end = perTerm[r + 1]!;
        packed.subarray(start, end).sort();
        for (let i = start; i < end; i++) {
          termOf[i] = r;
          termArea[i] = Math.floor(packed[i]! / scale);
          termChanges[i] = packed[i]! % scale;
        }
      }
      const termNames = new Array<string>(termRank.length);
      terms.names.forEach((name, t) => (termNames[termRank[t]!] = name));
      return {
        changes,
        areaNames: kept.map((a) => areas.names[a]!),
        areaChanges: Int32Array.from(kept, (a) => changesIn[a]!),
        termNames,
        termOf,
        termArea,
        termChanges,
      };
    },
  };
}
