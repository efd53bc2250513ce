import { countWorkspaceItems, listItemMentions, listItemTitles, type ItemTitleRow, type Queryable, type SearchReadModel } from '@engram/stores';
import { TOPICAL_CATEGORIES, toTopicalEntity, type EntityRow, type TopicalEntity } from './features.js';
import { yieldToLoop } from './offThread.js';

export { toTopicalEntity, type EntityRow };

/**
 * Number of items in the workspace, the N of every IDF here: counted in SQL, or the read model's document
 * count (in memory on the embedded default, where counting 100k items held the database for 0.15-0.3 s).
 */
export const countItems = async (from: Queryable | Pick<SearchReadModel, 'stats'>, workspaceId: string): Promise<number> =>
  'stats' in from ? (await from.stats(workspaceId)).documents : countWorkspaceItems(from, workspaceId);

/**
 * The topical entity mentions of each item (document frequency is `entities.item_count`, kept by the
 * pipeline), from SQL or from a read model. Items without any are absent from the map.
 */
export const loadTopicalMentions = (from: Queryable | Pick<SearchReadModel, 'itemMentions'>, workspaceId: string, itemIds: readonly string[]): Promise<Map<string, EntityRow[]>> =>
  ('itemMentions' in from ? from.itemMentions(workspaceId, itemIds, TOPICAL_CATEGORIES) : listItemMentions(from, itemIds, TOPICAL_CATEGORIES)) as Promise<Map<string, EntityRow[]>>;

/**
 * Items whose mentions one read asks for, with a turn of the event loop between reads: an expertise pass
 * over a prolific author asked the in-memory read model for tens of thousands of items at once: one run of
 * 0.7 s on the event loop in a CPU profile of the server at 100k items under 16 searching clients.
 */
const MENTIONS_PAGE = 2_000;

/** The topical entities of each item, weighted by their IDF in the workspace. Items without any are absent. */
export async function loadTopicalEntities(
  from: Queryable | Pick<SearchReadModel, 'itemMentions'>,
  workspaceId: string,
  itemIds: readonly string[],
  itemCount: number,
): Promise<Map<string, TopicalEntity[]>> {
  const out = new Map<string, TopicalEntity[]>();
  for (let start = 0; start < itemIds.length; start += MENTIONS_PAGE) {
    if (start > 0) await yieldToLoop();
    for (const [itemId, rows] of await loadTopicalMentions(from, workspaceId, itemIds.slice(start, start + MENTIONS_PAGE))) {
      out.set(itemId, rows.map((r) => toTopicalEntity(r, itemCount)));
    }
  }
  return out;
}

export type ItemText = ItemTitleRow;

/** Titles (falling back to the snippet) of items, for labels and summaries. */
export const loadItemTexts = (db: Queryable, itemIds: readonly string[]): Promise<Map<string, ItemText>> => listItemTitles(db, itemIds);
