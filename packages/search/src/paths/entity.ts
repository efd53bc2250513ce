import type { Queryable } from '@engram/stores';
import { itemFilterSql, narrowsItems, type ItemFilter } from '../filters.js';
import type { StatsCache } from './stats.js';
import { timed, type PathResult } from './types.js';

export interface QueryEntity {
  key: string;
  category: string;
  confidence: number;
}

/**
 * The entity path: items that mention the query's entities (people, repos, PR/issue refs, file paths
 * and areas, languages, packages, keywords). An item's score is the share of the query's entity weight
 * (idf x confidence) it covers, so it stays in [0, 1].
 */
export function entityPath(db: Queryable, stats: StatsCache, filter: ItemFilter, entities: QueryEntity[], k: number): Promise<PathResult> {
  return timed(async () => {
    if (entities.length === 0) return { scores: new Map() };
    const keys = [...new Set(entities.map((e) => e.key))];
    const known = await db.query<{ id: string; key: string; category: string; item_count: number }>(
      'SELECT id, key, category, item_count FROM entities WHERE workspace_id = $1 AND key = ANY($2::text[])',
      [filter.workspaceId, keys],
    );
    if (known.rows.length === 0) return { scores: new Map() };
    const n = Math.max(1, (await stats.get(filter.workspaceId)).documents);
    // Weight of each known entity the query names (by id), the best of the query's mentions of it.
    const weight = new Map<string, number>();
    for (const e of entities) {
      const stat = known.rows.find((r) => r.key === e.key && (r.category === e.category || e.category === '*'));
      if (!stat) continue;
      const idf = Math.log(1 + n / Math.max(1, stat.item_count));
      weight.set(String(stat.id), Math.max(weight.get(String(stat.id)) ?? 0, idf * e.confidence));
    }
    const denom = [...weight.values()].reduce((a, x) => a + x, 0);
    if (denom === 0) return { scores: new Map() };
    const where = itemFilterSql(filter, 2);
    const narrowed = narrowsItems(filter);
    const rows = await db.query<{ id: string; entity_id: string; confidence: number }>(
      narrowed
        ? `SELECT m.item_id AS id, m.entity_id, m.confidence FROM entity_mentions m JOIN items i ON i.id = m.item_id
           WHERE m.entity_id = ANY($1::bigint[]) AND ${where.sql}`
        : 'SELECT item_id AS id, entity_id, confidence FROM entity_mentions WHERE entity_id = ANY($1::bigint[])',
      narrowed ? [[...weight.keys()], ...where.params] : [[...weight.keys()]],
    );
    const raw = new Map<string, number>();
    const matched = new Map<string, number>();
    for (const r of rows.rows) {
      const w = weight.get(String(r.entity_id)) ?? 0;
      raw.set(r.id, (raw.get(r.id) ?? 0) + w * Math.min(1, r.confidence));
      matched.set(r.id, (matched.get(r.id) ?? 0) + 1);
    }
    const ranked = [...raw].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k);
    const scores = new Map(ranked.map(([id, s]) => [id, Math.min(1, s / denom)]));
    const signals = new Map(ranked.map(([id]) => [id, { entityMatches: matched.get(id) ?? 0 }]));
    return { scores, signals };
  });
}
