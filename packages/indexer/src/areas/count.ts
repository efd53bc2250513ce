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
 * Counts, per area, the changes touching it and how many of their titles hold each term. Areas only one
 * change touched are left out (they tell nothing about another change); the root is always kept, so an
 * empty workspace still has a row saying the model was built. Pure: runs inline or in the worker.
 *
 * Areas and terms are numbered as they come, and each area counts its terms by number. The rows are
 * put in order (term, then area, by name) with typed arrays: at 100k items (53k changes, 10.7k areas,
 * 1.5M rows) a row per small array, sorted by comparing strings, held ~225 MB more of the worker's heap
 * and took 3.6 s.
 */
export function createAreaCounter(): AreaCounter {
  const areas = new Names();
  const terms = new Names();
  areas.id(ROOT);
  // By area id: the changes touching it, and how many of their titles hold each term (by term id).
  const changesIn: number[] = [0];
  const termsIn: Map<number, number>[] = [new Map()];
  let changes = 0;
  return {
    addPage(page) {
      const count = (area: number, ids: ReadonlySet<number>): void => {
        changesIn[area] = (changesIn[area] ?? 0) + 1;
        const counts = (termsIn[area] ??= new Map());
        for (const t of ids) counts.set(t, (counts.get(t) ?? 0) + 1);
      };
      page.titles.forEach((title, i) => {
        changes++;
        const ids = new Set<number>();
        for (const term of tokenize(title)) ids.add(terms.id(term));
        count(0, ids);
        for (const area of page.areas[i] ?? []) if (area !== ROOT) count(areas.id(area), ids);
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
      for (const a of kept) for (const t of termsIn[a]!.keys()) perTerm[termRank[t]! + 1]!++;
      for (let r = 1; r < perTerm.length; r++) perTerm[r]! += perTerm[r - 1]!;
      const total = perTerm[termRank.length]!;
      // A row's area row and count in one number (area row * scale + count; a count is at most `changes`),
      // so a term's rows sort natively.
      const scale = 2 ** Math.ceil(Math.log2(changes + 1));
      if (kept.length * scale > Number.MAX_SAFE_INTEGER) throw new Error(`area model: ${kept.length} areas of ${changes} changes do not fit its row keys`);
      const packed = new Float64Array(total);
      const next = perTerm.slice(0, termRank.length);
      for (const a of kept) for (const [t, n] of termsIn[a]!) packed[next[termRank[t]!]!++] = keptAt[a]! * scale + n;
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
