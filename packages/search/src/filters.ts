import type { Filters } from '@engram/contracts';
import type { ItemFilter as StoreItemFilter } from '@engram/stores';

/**
 * Filters as every retrieval path needs them: the vector store's payload filter, which the SQL paths
 * apply over `items` too (one shape, so a filter means the same on every path).
 */
export type ItemFilter = StoreItemFilter;

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

export { itemFilterSql, narrowsItems } from '@engram/stores';
