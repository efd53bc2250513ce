import type { ItemFilter } from './types.js';

/**
 * SQL conditions on `items` aliased `alias`, with parameters numbered from `first`. Applied inside
 * every retrieval read, never after a top-k cut.
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

/** Whether the filter asks more than the workspace: only then must a read join `items` to apply it. */
export function narrowsItems(f: ItemFilter): boolean {
  return Boolean(f.sources?.length || f.types?.length || f.actorNames?.length || f.from || f.to || f.excludeItemIds?.length);
}

/** The same filter as a predicate over an item's fields (the in-memory index applies it per document). */
export function itemPredicate(f: ItemFilter): ((doc: { source: string; type: string; occurredAt: number; actorNames: readonly string[]; id: string }) => boolean) | null {
  if (!narrowsItems(f)) return null;
  const sources = f.sources?.length ? new Set(f.sources) : null;
  const types = f.types?.length ? new Set(f.types) : null;
  const actors = f.actorNames?.length ? new Set(f.actorNames) : null;
  const from = f.from ? Date.parse(f.from) : -Infinity;
  const to = f.to ? Date.parse(f.to) : Infinity;
  const excluded = f.excludeItemIds?.length ? new Set(f.excludeItemIds) : null;
  return (d) =>
    (!sources || sources.has(d.source)) &&
    (!types || types.has(d.type)) &&
    d.occurredAt >= from &&
    d.occurredAt <= to &&
    (!actors || d.actorNames.some((a) => actors.has(a))) &&
    !excluded?.has(d.id);
}
