import type { Filters } from '@engram/contracts';
import type { VectorFilter } from '@engram/stores';

/**
 * Filters as every retrieval path needs them: the vector store's payload filter, which the SQL paths
 * apply over `items` too (one shape, so a filter means the same on every path).
 */
export type ItemFilter = VectorFilter;

export function toItemFilter(workspaceId: string, filters: Filters | undefined, excludeIds?: string[]): ItemFilter {
  return {
    workspaceId,
    sources: filters?.sourceTypes?.map((s) => s.toLowerCase()),
    types: filters?.observationTypes,
    actorNames: filters?.actorNames?.map((a) => a.trim().replace(/^@/, '').toLowerCase()),
    from: filters?.dateRange?.start,
    to: filters?.dateRange?.end,
    excludeItemIds: excludeIds?.length ? excludeIds : undefined,
  };
}

/**
 * SQL conditions on `items` aliased `alias`, with parameters numbered from `first`. Applied inside
 * every retrieval path, never after a top-k cut.
 */
export function itemFilterSql(f: ItemFilter, first: number, alias = 'i'): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (fn: (p: string) => string, value: unknown) => {
    params.push(value);
    parts.push(fn(`$${first + params.length - 1}`));
  };
  add((p) => `${alias}.workspace_id = ${p}`, f.workspaceId);
  if (f.sources?.length) add((p) => `${alias}.source = ANY(${p}::text[])`, f.sources);
  if (f.types?.length) add((p) => `${alias}.type = ANY(${p}::text[])`, f.types);
  if (f.actorNames?.length) add((p) => `${alias}.actor_names && ${p}::text[]`, f.actorNames);
  if (f.from) add((p) => `${alias}.occurred_at >= ${p}::timestamptz`, f.from);
  if (f.to) add((p) => `${alias}.occurred_at <= ${p}::timestamptz`, f.to);
  if (f.excludeItemIds?.length) add((p) => `NOT (${alias}.id = ANY(${p}::text[]))`, f.excludeItemIds);
  return { sql: parts.join(' AND '), params };
}

/** Whether the filter asks more than the workspace: only then must a path read `items` to apply it. */
export function narrowsItems(f: ItemFilter): boolean {
  return itemFilterSql(f, 1).params.length > 1;
}
