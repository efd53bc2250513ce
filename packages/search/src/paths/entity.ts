import type { SearchReadModel } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
import { best } from './lexical.js';
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
    const matches = await read.entityMatches(filter, [...new Set(entities.map((e) => e.key))]);
    const known = matches.entities;
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
    // Per document ordinal, as the lexical path scores: an entity of tens of thousands of mentions (a
    // language, a busy directory) costs a few adds per mention, and only the kept `k` get an id.
    const weighted = known.filter((e) => weight.has(e.id));
    let maxDoc = -1;
    for (const e of weighted) for (let m = 0; m < e.count; m++) maxDoc = Math.max(maxDoc, e.docs[m]!);
    const { raw, matched, touched } = scratch(maxDoc + 1);
    let touchedCount = 0;
    try {
      for (const entity of weighted) {
        const w = weight.get(entity.id)!;
        const { confidence } = entity;
        const uniform = typeof confidence === 'number' ? w * Math.min(1, confidence) : 0;
        for (let m = 0; m < entity.count; m++) {
          const doc = entity.docs[m]!;
          if (!matches.admits(doc)) continue;
          if (matched[doc] === 0) touched[touchedCount++] = doc;
          raw[doc] = raw[doc]! + (typeof confidence === 'number' ? uniform : w * Math.min(1, confidence[m]!));
          matched[doc] = matched[doc]! + 1;
        }
      }
      const docs = best(raw, touched.subarray(0, touchedCount), k, matches.itemId);
      const ranked = docs.map((doc) => ({ id: matches.itemId(doc), score: raw[doc]!, matched: matched[doc]! }));
      const scores = new Map(ranked.map((r) => [r.id, Math.min(1, r.score / denom)]));
      const signals = new Map(ranked.map((r) => [r.id, { entityMatches: r.matched }]));
      return { scores, signals, docs };
    } finally {
      for (let i = 0; i < touchedCount; i++) {
        raw[touched[i]!] = 0;
        matched[touched[i]!] = 0;
      }
    }
  });
}

/**
 * One slot per document ordinal, zeroed after each search (the scoring loop never awaits), and the list
 * of documents touched (a language's mentions are tens of thousands at 100k items: no array grown per
 * search); grown, never shrunk.
 */
const sized = (n: number) => ({ raw: new Float64Array(n), matched: new Uint16Array(n), touched: new Int32Array(n) });
let slots = sized(1 << 14);
function scratch(size: number): typeof slots {
  if (size > slots.raw.length) slots = sized(Math.max(size, slots.raw.length * 2));
  return slots;
}
