import { extractEntities } from '@engram/indexer/entities';
import type { QueryEntity } from './paths/entity.js';

/** Entities a query names, extracted as if it were an item title. */
export function queryEntities(query: string): QueryEntity[] {
  return extractEntities({ source: 'github', type: 'issue', title: query, body: '', files: [], labels: [], actors: [], keys: [], refs: [], metadata: {} }).map((e) => ({
    key: e.key,
    category: e.category,
    confidence: e.confidence,
  }));
}
