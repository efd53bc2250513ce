import type { SourceEvent } from '@engram/contracts';
import {
  IDENTITY_RELATION,
  applyLexiconChanges,
  findKeyRows,
  getItemStates,
  lockItems,
  lockWorkspaceLinks,
  adjustActorItemCounts,
  markExpertiseStale,
  replaceItemsActors,
  replaceItemsEdges,
  replaceItemsEntities,
  replaceItemsRefs,
  upsertItems,
  type EdgeRow,
  type ItemRow,
  type ItemState,
  type Queryable,
} from '@engram/stores';
import { resolveActors } from './actors/resolve.js';
import { extractEntities } from './entities/index.js';
import { lexicalFields } from './lexical.js';
import { batchKeyFinder, deriveEdgesWith, type LinkedItem } from './links/deriveEdges.js';
import { identityKeys, itemRefs } from './links/keys.js';

export type WriteResult =
  | { status: 'written'; actorIds: string[]; edges: number }
  | { status: 'stale' | 'unchanged' };

/** What an item's rows are built from that needs only its event: computed before the write's transaction. */
export interface DerivedItem {
  lexical: ReturnType<typeof lexicalFields>;
  entities: ReturnType<typeof extractEntities>;
  keys: string[];
  refs: ReturnType<typeof itemRefs>;
}

export function deriveItem(event: SourceEvent): DerivedItem {
  const keys = identityKeys(event);
  return {
    lexical: lexicalFields({ title: event.title, body: event.body, files: event.files, labels: event.labels }),
    entities: extractEntities(event),
    keys,
    refs: itemRefs(event, keys),
  };
}

export interface ItemWrite {
  item: ItemRow;
  event: SourceEvent;
  /**
   * `deriveItem(event)`, when the caller computed it before opening the transaction (a transaction holds
   * the embedded database's one connection: it should not wait on this thread's work meanwhile).
   */
  derived?: DerivedItem;
  /** Why the stored state (re-read under the item's lock) makes this write unnecessary, or null to write. */
  verdict: (current: ItemState | null) => 'stale' | 'unchanged' | null;
}

/** One item: `writeItems` with a batch of one. */
export async function writeItem(tx: Queryable, input: ItemWrite): Promise<WriteResult> {
  const [result] = await writeItems(tx, input.item.workspaceId, [input]);
  return result!;
}

/**
 * Everything a batch of events of one workspace changes in the system of record, inside the caller's
 * transaction: the items and their lexical index, lexicon frequencies, entities, linking keys, actors and
 * edges, each table in a few multi-row statements. The stored states are re-read under per-item locks (taken
 * in id order), so two deliveries of one item never interleave. Item ids must be distinct. Edges are
 * derived after every item of the batch has its keys and refs stored, so items of one batch link to each
 * other as they would if indexed one after another. Returns one result per write, in order.
 */
export async function writeItems(tx: Queryable, workspaceId: string, writes: readonly ItemWrite[]): Promise<WriteResult[]> {
  if (new Set(writes.map((w) => w.item.id)).size !== writes.length) throw new Error('writeItems: item ids must be distinct');
  if (writes.some((w) => w.item.workspaceId !== workspaceId)) throw new Error('writeItems: every item must belong to the workspace');
  const ids = writes.map((w) => w.item.id);
  // Sent together: a transaction's statements run in order, so the states are read once the locks are held,
  // and the database does not wait for this thread between the two (17 ms a 128-item batch at 100k items,
  // while the transaction held the embedded database's one connection).
  const [, states] = await Promise.all([lockItems(tx, ids), getItemStates(tx, ids)]);
  const results: WriteResult[] = writes.map((w) => {
    const skip = w.verdict(states.get(w.item.id) ?? null);
    return skip ? { status: skip } : { status: 'written', actorIds: [], edges: 0 };
  });
  const live = writes.filter((_, i) => results[i]!.status === 'written');
  if (live.length === 0) return results;

  const derived = live.map((w) => w.derived ?? deriveItem(w.event));
  const terms = await upsertItems(
    tx,
    live.map(({ item }, i) => ({ item, lexical: derived[i]!.lexical })),
  );
  await applyLexiconChanges(tx, workspaceId, live.map(({ item }) => ({ before: states.get(item.id)?.terms ?? [], after: terms.get(item.id) ?? [] })));
  await replaceItemsEntities(tx, workspaceId, live.map(({ item }, i) => ({ itemId: item.id, entities: derived[i]!.entities })));

  const linked: LinkedItem[] = live.map(({ item }, i) => {
    const { keys, refs } = derived[i]!;
    return { workspaceId, id: item.id, type: item.type, occurredAt: item.occurredAt, keys, refs };
  });
  await replaceItemsRefs(
    tx,
    workspaceId,
    linked.map((l) => ({ itemId: l.id, refs: [...l.keys.map((key) => ({ key, relation: IDENTITY_RELATION, confidence: 1 })), ...l.refs] })),
  );

  // From here on, one indexer per workspace at a time: actors merge and edges link against committed rows.
  await lockWorkspaceLinks(tx, workspaceId);
  const { resolved, mergedInto } = await resolveActors(tx, workspaceId, live.flatMap((w) => w.event.actors));
  const survivor = (id: string): string => {
    let at = id;
    for (let hops = 0; mergedInto.has(at) && hops < 100; hops++) at = mergedInto.get(at) ?? at;
    return at;
  };
  let at = 0;
  const rolesOf = live.map(({ event }) => {
    const roles: { actorId: string; role: string }[] = [];
    for (const ref of event.actors) {
      const r = resolved[at++];
      if (r) roles.push({ actorId: survivor(r.actorId), role: ref.role });
    }
    return [...new Map(roles.map((r) => [`${r.actorId}\u0000${r.role}`, r])).values()];
  });
  const previous = await replaceItemsActors(tx, workspaceId, live.map(({ item }, i) => ({ itemId: item.id, roles: rolesOf[i]! })));
  const actorIdsOf = live.map(({ item }, i) =>
    [...new Set([...rolesOf[i]!.map((r) => r.actorId), ...(previous.get(item.id) ?? []).filter((id) => !mergedInto.has(id))])].sort(),
  );
  const delta = new Map<string, number>();
  live.forEach(({ item }, i) => {
    const before = new Set(previous.get(item.id) ?? []);
    const after = new Set(rolesOf[i]!.map((r) => r.actorId));
    for (const id of after) if (!before.has(id)) delta.set(id, (delta.get(id) ?? 0) + 1);
    for (const id of before) if (!after.has(id) && !mergedInto.has(id)) delta.set(id, (delta.get(id) ?? 0) - 1);
  });
  await adjustActorItemCounts(tx, delta, [...new Set(mergedInto.values())].map(survivor));
  await markExpertiseStale(tx, workspaceId, actorIdsOf.flat());

  const find = await batchKeyFinder((keys) => findKeyRows(tx, workspaceId, keys), linked);
  const edgesOf: EdgeRow[][] = [];
  for (const l of linked) edgesOf.push(await deriveEdgesWith(find, l));
  await replaceItemsEdges(tx, { workspaceId, itemIds: linked.map((l) => l.id), edges: edgesOf.flat() });

  let n = 0;
  return results.map((r) => {
    if (r.status !== 'written') return r;
    const i = n++;
    return { status: 'written', actorIds: actorIdsOf[i]!, edges: edgesOf[i]!.length };
  });
}
