import type { SearchReadModel } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
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
export function entityPath(read: SearchReadModel, filter: ItemFilter, entities: QueryEntity[], k: number): Promise<PathResult> {
  return timed(async () => {
    if (entities.length === 0) return { scores: new Map() };
    const known = await read.entityMatches(filter, [...new Set(entities.map((e) => e.key))]);
    if (known.length === 0) return { scores: new Map() };
    const n = Math.max(1, (await read.stats(filter.workspaceId)).documents);
    // Weight of each known entity the query names (by id), the best of the query's mentions of it.
    const weight = new Map<string, number>();
    for (const e of entities) {
      const stat = known.find((r) => r.key === e.key && (r.category === e.category || e.category === '*'));
      if (!stat) continue;
      const idf = Math.log(1 + n / Math.max(1, stat.itemCount));
      weight.set(stat.id, Math.max(weight.get(stat.id) ?? 0, idf * e.confidence));
    }
    const denom = [...weight.values()].reduce((a, x) => a + x, 0);
    if (denom === 0) return { scores: new Map() };
    const raw = new Map<string, number>();
    const matched = new Map<string, number>();
    for (const entity of known) {
      const w = weight.get(entity.id);
      if (w === undefined) continue;
      for (const m of entity.mentions) {
        raw.set(m.itemId, (raw.get(m.itemId) ?? 0) + w * Math.min(1, m.confidence));
        matched.set(m.itemId, (matched.get(m.itemId) ?? 0) + 1);
      }
    }
    const ranked = [...raw].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k);
    const scores = new Map(ranked.map(([id, s]) => [id, Math.min(1, s / denom)]));
    const signals = new Map(ranked.map(([id]) => [id, { entityMatches: matched.get(id) ?? 0 }]));
    return { scores, signals };
  });
}
