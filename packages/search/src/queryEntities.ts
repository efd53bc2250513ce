import { extractTextEntities } from '@engram/indexer/entities';
import type { QueryEntity } from './paths/entity.js';

/** Entities a query names, read as a title (plain text: no item, no structured fields). */
export function queryEntities(query: string): QueryEntity[] {
  return extractTextEntities({ title: query, body: '' }).map((e) => ({ key: e.key, category: e.category, confidence: e.confidence }));
}
