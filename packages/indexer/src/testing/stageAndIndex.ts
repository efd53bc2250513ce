import type { SourceEvent } from '@engram/contracts';
import { stageEvents, type Queryable } from '@engram/stores';
import type { Indexer } from '../indexer.js';

/**
 * Stages events into a workspace and indexes each at once, in order: the production pipeline without
 * the queue between the two. Returns the item ids; an event that does not index throws.
 */
export async function stageAndIndex(db: Queryable, indexer: Pick<Indexer, 'indexEvent'>, workspaceId: string, events: SourceEvent[]): Promise<string[]> {
  const { ids } = await stageEvents(db, { workspaceId, events });
  const itemIds: string[] = [];
  for (const id of ids) {
    const out = await indexer.indexEvent(id);
    if (!out.itemId) throw new Error(`event ${id} was not indexed: ${out.status}`);
    itemIds.push(out.itemId);
  }
  return itemIds;
}
