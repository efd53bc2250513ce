import { newestItemAt, releasedAt, type Queryable } from '@engram/stores';
import { timeWindowsOf, type WindowBound } from '../queryText.js';
import type { ItemFilter } from '../filters.js';

/**
 * A question's time window as a date filter: "since 3.5" from the date the workspace released 3.5 (its
 * own release items, `releasedAt`), "in 2024", "this year", "in the last three months" counted back from
 * the workspace's newest item (an imported history is asked about as of its own present). A window the
 * workspace cannot place (a version it never released) is left out rather than guessed; a soft one
 * ("recently") is no filter: the reranker reads it as a prior (`rank/features.ts`). A date range the
 * request gives is kept and narrowed, never widened.
 */
const CACHE_MS = 60_000;

interface Cached {
  at: number;
  value: string | null;
}

const caches = new WeakMap<object, Map<string, Cached>>();

async function cached(db: Queryable, key: string, load: () => Promise<string | null>): Promise<string | null> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
  const value = await load();
  if (cache.size > 1_000) cache.clear();
  cache.set(key, { at: Date.now(), value });
  return value;
}

const DAY_MS = 86_400_000;

function backFrom(anchor: Date, n: number, unit: 'day' | 'week' | 'month' | 'year'): Date {
  const d = new Date(anchor);
  if (unit === 'day') return new Date(d.getTime() - n * DAY_MS);
  if (unit === 'week') return new Date(d.getTime() - 7 * n * DAY_MS);
  if (unit === 'month') d.setUTCMonth(d.getUTCMonth() - n);
  else d.setUTCFullYear(d.getUTCFullYear() - n);
  return d;
}

async function resolveBound(db: Queryable, workspaceId: string, bound: WindowBound, anchor: () => Promise<Date | null>): Promise<Date | null> {
  if ('version' in bound) {
    const at = await cached(db, `release:${workspaceId}:${bound.version}`, () => releasedAt(db, workspaceId, bound.version));
    return at ? new Date(at) : null;
  }
  if ('year' in bound) return new Date(Date.UTC(bound.year, 0, 1));
  const now = await anchor();
  if (!now) return null;
  if ('relativeYear' in bound) return new Date(Date.UTC(now.getUTCFullYear() + bound.relativeYear, 0, 1));
  return backFrom(now, bound.back, bound.unit);
}

/** The question's filter narrowed to the time window it names; the filter as it was when it names none. */
export async function withTimeWindow(db: Queryable, question: string, filter: ItemFilter): Promise<ItemFilter> {
  const windows = timeWindowsOf(question).filter((w) => !w.soft);
  if (windows.length === 0) return filter;
  const anchor = async (): Promise<Date | null> => {
    const at = await cached(db, `newest:${filter.workspaceId}`, () => newestItemAt(db, filter.workspaceId));
    return at ? new Date(at) : null;
  };
  let from = filter.from ? Date.parse(filter.from) : -Infinity;
  let to = filter.to ? Date.parse(filter.to) : Infinity;
  for (const w of windows) {
    const start = w.from ? await resolveBound(db, filter.workspaceId, w.from, anchor) : null;
    // The window's end is exclusive ("before 3.7" holds nothing of 3.7's release day); the filter's is inclusive.
    const end = w.to ? await resolveBound(db, filter.workspaceId, w.to, anchor) : null;
    if (start) from = Math.max(from, start.getTime());
    if (end) to = Math.min(to, end.getTime() - 1);
  }
  if (from === -Infinity && to === Infinity) return filter;
  return { ...filter, ...(from > -Infinity ? { from: new Date(from).toISOString() } : {}), ...(to < Infinity ? { to: new Date(to).toISOString() } : {}) };
}
