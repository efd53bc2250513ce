import { IDENTITY_RELATION, findKeyMatches, type EdgeRow, type KeyMatch, type Queryable } from '@engram/stores';
import { SHARED_RELATIONS, edgeTypeOf, orient } from './edgeTypes.js';
import type { LinkRef } from './keys.js';

/**
 * A `title:` key is a weak identity (titles repeat: "Update dependencies"). A revert links through it
 * only to items that came before the revert, and only when few do (a PR, its squash commit, a backport).
 */
export const TITLE_KEY_LIMIT = 4;
/** A branch or commit pointed at by more items than this (a long-lived branch) links nothing by itself. */
export const SHARED_KEY_LIMIT = 25;

export interface LinkedItem {
  workspaceId: string;
  id: string;
  type: string;
  occurredAt: string;
  keys: readonly string[];
  refs: readonly LinkRef[];
}

const isTitleKey = (key: string): boolean => key.startsWith('title:');

/** Every edge touching `item`, in both directions, from the keys and refs stored for other items. */
export async function deriveEdges(db: Queryable, item: LinkedItem): Promise<EdgeRow[]> {
  const out = new Map<string, EdgeRow>();
  const add = (from: { id: string; type: string }, to: { id: string; type: string }, relation: string, key: string, confidence: number) => {
    const type = edgeTypeOf(relation, from.type, to.type);
    if (type === null) return;
    push({ ...orient(type, from, to), type, linkingKey: key, confidence });
  };
  const push = (edge: EdgeRow) => {
    const id = `${edge.sourceId}\u0000${edge.targetId}\u0000${edge.type}`;
    const seen = out.get(id);
    if (!seen || seen.confidence < edge.confidence) out.set(id, edge);
  };
  const self = { id: item.id, type: item.type };
  const base = { workspaceId: item.workspaceId, excludeItemId: item.id };

  // This item's references -> items holding the key.
  const direct = item.refs.filter((r) => r.relation !== 'on_branch');
  const holders = await findKeyMatches(db, { ...base, keys: direct.map((r) => r.key), relations: [IDENTITY_RELATION] });
  const holdersByKey = groupByKey(holders);
  for (const ref of direct) {
    let targets = holdersByKey.get(ref.key) ?? [];
    if (isTitleKey(ref.key)) targets = titleTargets(targets, item.occurredAt);
    for (const h of targets) add(self, { id: h.itemId, type: h.itemType }, ref.relation, ref.key, ref.confidence);
  }

  // Other items' references -> this item's keys.
  const referrers = await findKeyMatches(db, { ...base, keys: item.keys, relations: null });
  const titleReferrers = referrers.filter((r) => isTitleKey(r.key));
  const otherHolders = titleReferrers.length
    ? groupByKey(await findKeyMatches(db, { ...base, keys: titleReferrers.map((r) => r.key), relations: [IDENTITY_RELATION] }))
    : new Map<string, KeyMatch[]>();
  for (const r of referrers) {
    if (isTitleKey(r.key)) {
      const candidates = [...(otherHolders.get(r.key) ?? []), { itemId: item.id, occurredAt: item.occurredAt } as KeyMatch];
      if (!titleTargets(candidates, r.occurredAt).some((c) => c.itemId === item.id)) continue;
    }
    add({ id: r.itemId, type: r.itemType }, self, r.relation, r.key, r.confidence);
  }

  // Items pointing at the same commit or branch as this one.
  const shared = item.refs.filter((r) => r.relation in SHARED_RELATIONS);
  const sharers = groupByKey(await findKeyMatches(db, { ...base, keys: shared.map((r) => r.key), relations: Object.keys(SHARED_RELATIONS) }));
  for (const ref of shared) {
    const others = sharers.get(ref.key) ?? [];
    if (others.length === 0 || others.length > SHARED_KEY_LIMIT) continue;
    const type = SHARED_RELATIONS[ref.relation];
    if (type === undefined) continue;
    for (const o of others) {
      if (SHARED_RELATIONS[o.relation] !== type) continue;
      push({ ...orient(type, self, { id: o.itemId, type: o.itemType }), type, linkingKey: ref.key, confidence: Math.min(ref.confidence, o.confidence) });
    }
  }
  return [...out.values()];
}

function groupByKey(matches: readonly KeyMatch[]): Map<string, KeyMatch[]> {
  const by = new Map<string, KeyMatch[]>();
  for (const m of matches) by.set(m.key, [...(by.get(m.key) ?? []), m]);
  return by;
}

/** Holders of a title key that a revert at `revertedAt` can mean: earlier ones, and only when few. */
function titleTargets<T extends { occurredAt: string }>(holders: readonly T[], revertedAt: string): T[] {
  const earlier = holders.filter((h) => h.occurredAt <= revertedAt);
  return earlier.length <= TITLE_KEY_LIMIT ? earlier : [];
}
