import type { SourceEvent } from '@engram/contracts';
import {
  IDENTITY_RELATION,
  applyLexiconChange,
  getItemState,
  lockItem,
  lockWorkspaceLinks,
  refreshActorItemCounts,
  replaceItemActors,
  replaceItemEdges,
  replaceItemEntities,
  replaceItemRefs,
  upsertItem,
  type ItemRow,
  type ItemState,
  type Queryable,
} from '@engram/stores';
import { resolveActor } from './actors/resolve.js';
import { extractEntities } from './entities/index.js';
import { lexicalFields } from './lexical.js';
import { deriveEdges } from './links/deriveEdges.js';
import { identityKeys, itemRefs } from './links/keys.js';

export type WriteResult =
  | { status: 'written'; actorIds: string[]; edges: number }
  | { status: 'stale' | 'unchanged' };

/**
 * Everything an event changes in the system of record, inside one transaction: the item and its
 * lexical index, lexicon frequencies, entities, linking keys, actors and edges. The stored state is
 * re-read under a per-item lock, so two deliveries of one item never interleave.
 */
export async function writeItem(
  tx: Queryable,
  input: { item: ItemRow; event: SourceEvent; verdict: (current: ItemState | null) => 'stale' | 'unchanged' | null },
): Promise<WriteResult> {
  const { item, event } = input;
  const { workspaceId } = item;
  await lockItem(tx, item.id);
  const current = await getItemState(tx, item.id);
  const skip = input.verdict(current);
  if (skip) return { status: skip };

  const terms = await upsertItem(tx, item, lexicalFields({ title: event.title, body: event.body, files: event.files, labels: event.labels }));
  await applyLexiconChange(tx, workspaceId, current?.terms ?? [], terms);
  await replaceItemEntities(tx, { workspaceId, itemId: item.id, entities: extractEntities(event) });

  const keys = identityKeys(event);
  const refs = itemRefs(event, keys);
  await replaceItemRefs(tx, {
    workspaceId,
    itemId: item.id,
    refs: [...keys.map((key) => ({ key, relation: IDENTITY_RELATION, confidence: 1 })), ...refs],
  });

  // From here on, one indexer per workspace at a time: actors merge and edges link against committed rows.
  await lockWorkspaceLinks(tx, workspaceId);
  const roles: { actorId: string; role: string }[] = [];
  const mergedInto = new Map<string, string>();
  for (const ref of event.actors) {
    const resolved = await resolveActor(tx, workspaceId, ref);
    if (!resolved) continue;
    roles.push({ actorId: resolved.actorId, role: ref.role });
    for (const id of resolved.merged) mergedInto.set(id, resolved.actorId);
  }
  const survivor = (id: string): string => {
    let at = id;
    for (let hops = 0; mergedInto.has(at) && hops < 100; hops++) at = mergedInto.get(at) ?? at;
    return at;
  };
  const finalRoles = [...new Map(roles.map((r) => [`${survivor(r.actorId)}\u0000${r.role}`, { actorId: survivor(r.actorId), role: r.role }])).values()];
  const previous = await replaceItemActors(tx, { workspaceId, itemId: item.id, roles: finalRoles });
  const actorIds = [...new Set([...finalRoles.map((r) => r.actorId), ...previous.filter((id) => !mergedInto.has(id))])].sort();
  await refreshActorItemCounts(tx, actorIds);

  const edges = await deriveEdges(tx, { workspaceId, id: item.id, type: item.type, occurredAt: item.occurredAt, keys, refs });
  await replaceItemEdges(tx, { workspaceId, itemId: item.id, edges });
  return { status: 'written', actorIds, edges: edges.length };
}
