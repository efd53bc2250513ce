import type { AreaModelColumns } from '@engram/stores';
import { tokenize } from '@engram/text';

/** The whole workspace, as an area (the same value as `ROOT_AREA` in @engram/stores). */
const ROOT = '';

/** One page of changes: each one's title and the areas its files touch (`areasOfFiles`). */
export interface ChangePage {
  titles: string[];
  areas: string[][];
}

/** The area model's rows, sorted as stored, column-wise (typed arrays transfer to the main thread). */
export interface AreaRows extends AreaModelColumns {
  areaNames: string[];
  areaChanges: Int32Array;
  termTerms: string[];
  termAreas: string[];
  termChanges: Int32Array;
}

export interface AreaCounter {
  addPage(page: ChangePage): void;
  finish(): AreaRows;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Counts, per area, the changes touching it and how many of their titles hold each term. Areas only one
 * change touched are left out (they tell nothing about another change); the root is always kept, so an
 * empty workspace still has a row saying the model was built. Pure: runs inline or in the worker.
 */
export function createAreaCounter(): AreaCounter {
  const changesIn = new Map<string, number>([[ROOT, 0]]);
  const termsIn = new Map<string, Map<string, number>>();
  let changes = 0;
  return {
    addPage(page) {
      page.titles.forEach((title, i) => {
        changes++;
        const terms = new Set(tokenize(title));
        for (const area of [ROOT, ...(page.areas[i] ?? [])]) {
          changesIn.set(area, (changesIn.get(area) ?? 0) + 1);
          const counts = termsIn.get(area) ?? termsIn.set(area, new Map()).get(area)!;
          for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
        }
      });
    },
    finish() {
      const areas: [string, number][] = [];
      const terms: [string, string, number][] = [];
      for (const [area, n] of changesIn) {
        if (n < 2 && area !== ROOT) continue;
        areas.push([area, n]);
        for (const [t, c] of termsIn.get(area) ?? []) terms.push([t, area, c]);
      }
      // Stored in key order, so a term's rows sit together on disk and a query reads few pages.
      areas.sort((a, b) => compare(a[0], b[0]));
      terms.sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));
      return {
        changes,
        areaNames: areas.map((a) => a[0]),
        areaChanges: Int32Array.from(areas, (a) => a[1]),
        termTerms: terms.map((t) => t[0]),
        termAreas: terms.map((t) => t[1]),
        termChanges: Int32Array.from(terms, (t) => t[2]),
      };
    },
  };
}
