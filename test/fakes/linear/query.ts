/**
 * Linear's filter and pagination semantics over plain objects: comparators (`eq`, `gte`, `containsIgnoreCase`,
 * ...), nested entity filters, `some`/`every` on collections, `and`/`or`, and cursor pagination with
 * `first/after` ordered by `createdAt` (default) or `updatedAt`, ties broken by id.
 */
type Filter = Record<string, unknown>;

const isDate = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v);

const compare = (a: unknown, b: unknown): number => {
  if (isDate(a) && isDate(b)) return Date.parse(a) - Date.parse(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
};

const COMPARATORS: Record<string, (value: unknown, operand: unknown) => boolean> = {
  eq: (v, o) => v != null && compare(v, o) === 0,
  neq: (v, o) => v == null || compare(v, o) !== 0,
  in: (v, o) => (o as unknown[]).some((x) => v != null && compare(v, x) === 0),
  nin: (v, o) => !(o as unknown[]).some((x) => v != null && compare(v, x) === 0),
  gt: (v, o) => v != null && compare(v, o) > 0,
  gte: (v, o) => v != null && compare(v, o) >= 0,
  lt: (v, o) => v != null && compare(v, o) < 0,
  lte: (v, o) => v != null && compare(v, o) <= 0,
  eqIgnoreCase: (v, o) => typeof v === 'string' && v.toLowerCase() === String(o).toLowerCase(),
  neqIgnoreCase: (v, o) => typeof v !== 'string' || v.toLowerCase() !== String(o).toLowerCase(),
  contains: (v, o) => typeof v === 'string' && v.includes(String(o)),
  notContains: (v, o) => typeof v !== 'string' || !v.includes(String(o)),
  containsIgnoreCase: (v, o) => typeof v === 'string' && v.toLowerCase().includes(String(o).toLowerCase()),
  startsWith: (v, o) => typeof v === 'string' && v.startsWith(String(o)),
  endsWith: (v, o) => typeof v === 'string' && v.endsWith(String(o)),
  null: (v, o) => (o ? v == null : v != null),
};

export function matchesFilter(value: unknown, filter: Filter | null | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, operand]) => {
    if (operand === undefined || operand === null) return true;
    if (key === 'and') return (operand as Filter[]).every((f) => matchesFilter(value, f));
    if (key === 'or') return (operand as Filter[]).some((f) => matchesFilter(value, f));
    if (key === 'some') return Array.isArray(value) && value.some((v) => matchesFilter(v, operand as Filter));
    if (key === 'every') return Array.isArray(value) && value.every((v) => matchesFilter(v, operand as Filter));
    if (key === 'length') return matchesFilter(Array.isArray(value) ? value.length : 0, operand as Filter);
    const comparator = COMPARATORS[key];
    if (comparator) return comparator(value, operand);
    const field = value != null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    return matchesFilter(field ?? null, operand as Filter);
  });
}

export interface PageArgs { first?: number | null; after?: string | null; orderBy?: 'createdAt' | 'updatedAt' | null }
interface Sortable { id: string; createdAt: string; updatedAt: string }

const encodeCursor = (sortValue: string, id: string): string => Buffer.from(JSON.stringify([sortValue, id])).toString('base64url');
const decodeCursor = (cursor: string): [string, string] => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') return [parsed[0], parsed[1]];
  } catch { /* fall through */ }
  throw new Error('Invalid cursor');
};

export const MAX_PAGE = 250;

/** A Relay connection page, as Linear returns it (`nodes`, `edges`, `pageInfo`). */
export function paginate<T, S extends Sortable>(items: S[], args: PageArgs, toNode: (item: S) => T) {
  const key = args.orderBy ?? 'createdAt';
  const sorted = [...items].sort((a, b) => compare(a[key], b[key]) || a.id.localeCompare(b.id));
  let start = 0;
  if (args.after) {
    const [value, id] = decodeCursor(args.after);
    const idx = sorted.findIndex((s) => (compare(s[key], value) || s.id.localeCompare(id)) > 0);
    start = idx === -1 ? sorted.length : idx;
  }
  const first = Math.min(Math.max(args.first ?? 50, 0), MAX_PAGE);
  const slice = sorted.slice(start, start + first);
  const cursors = slice.map((s) => encodeCursor(s[key], s.id));
  const nodes = slice.map(toNode);
  return {
    nodes,
    edges: nodes.map((node, i) => ({ node, cursor: cursors[i] })),
    pageInfo: {
      startCursor: cursors[0] ?? null,
      endCursor: cursors.at(-1) ?? null,
      hasPreviousPage: start > 0,
      hasNextPage: start + first < sorted.length,
    },
  };
}
