import { IDENTITY_RELATION, findKeyMatches, type EdgeRow, type KeyMatch, type Queryable } from '@engram/stores';
import { REVERT_COUNTERPART_RELATIONS, SHARED_RELATIONS, edgeTypeOf, orient } from './edgeTypes.js';
import type { LinkRef } from './keys.js';

/**
 * A `title:` key is a weak identity (titles repeat: "Update dependencies"). A revert links through it
 * only to items of its own type that came before it, and only when few do (the change, a backport).
 */
export const TITLE_KEY_LIMIT = 4;
/**
 * A branch or commit pointed at by more items than this (a long-lived branch) links nothing by itself;
 * nor does a key that more counterparts of a revert's type stand for.
 */
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

/** Rows of other items on some keys (see `findKeyMatches`): the only thing edge derivation reads. */
export type KeyFinder = (query: { workspaceId: string; keys: readonly string[]; relations: readonly string[] | null; excludeItemId: string }) => Promise<KeyMatch[]>;

/**
 * Reads rows on keys for `batchKeyFinder`: every row on `anyRelation`, and the references (rows other than
 * identity rows) on `referencesOnly`.
 */
export type KeyRowReader = (keys: { anyRelation: readonly string[]; referencesOnly: readonly string[] }) => Promise<KeyMatch[]>;

/**
 * A KeyFinder for a batch of items, over rows read up front (`findKeyRows`), that answers every question
 * `deriveEdgesWith` asks about these items exactly as `findKeyMatches` would on the same state, without a
 * query per item. What it reads: every row on the keys the items reference; the references on their own
 * keys (who refers to them); and the holders of one of their own `title:` keys only when something refers
 * to that title (a revert by title). A title like "Update dependencies" is held by hundreds of items at
 * 100k, and those holders are what this leaves unread: at 100k they were nine rows in ten of the batch's
 * read, its most expensive statement.
 */
export async function batchKeyFinder(read: KeyRowReader, items: readonly Pick<LinkedItem, 'keys' | 'refs'>[]): Promise<KeyFinder> {
  const anyRelation = new Set(items.flatMap((i) => i.refs.map((r) => r.key)));
  const referencesOnly = new Set(items.flatMap((i) => i.keys).filter((k) => !anyRelation.has(k)));
  const rows = await read({ anyRelation: [...anyRelation], referencesOnly: [...referencesOnly] });
  const referredTitles = new Set(rows.filter((r) => referencesOnly.has(r.key) && isTitleKey(r.key) && r.relation !== IDENTITY_RELATION).map((r) => r.key));
  if (referredTitles.size > 0) rows.push(...(await read({ anyRelation: [...referredTitles], referencesOnly: [] })).filter((r) => r.relation === IDENTITY_RELATION));
  return keyFinderOver(rows);
}

/** A KeyFinder over rows read once: answers as `findKeyMatches` would for keys whose rows it holds. */
function keyFinderOver(rows: readonly KeyMatch[]): KeyFinder {
  const byKey = groupByKey(rows);
  return async ({ keys, relations, excludeItemId }) => {
    const allowed = relations ? new Set(relations) : null;
    const out: KeyMatch[] = [];
    for (const key of new Set(keys)) {
      for (const r of byKey.get(key) ?? []) {
        if (r.itemId === excludeItemId) continue;
        if (allowed ? !allowed.has(r.relation) : r.relation === IDENTITY_RELATION) continue;
        out.push(r);
      }
    }
    return out;
  };
}

/** Every edge touching `item`, in both directions, from the keys and refs stored for other items. */
export async function deriveEdges(db: Queryable, item: LinkedItem): Promise<EdgeRow[]> {
  return deriveEdgesWith((query) => findKeyMatches(db, query), item);
}

/** `deriveEdges` reading through `find`: the same rules, whatever holds the rows. */
export async function deriveEdgesWith(find: KeyFinder, item: LinkedItem): Promise<EdgeRow[]> {
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
  const holders = await find({ ...base, keys: direct.map((r) => r.key), relations: [IDENTITY_RELATION] });
  const holdersByKey = groupByKey(holders);
  for (const ref of direct) {
    let targets = holdersByKey.get(ref.key) ?? [];
    if (isTitleKey(ref.key)) targets = titleTargets(targets.filter((h) => h.itemType === item.type), item.occurredAt);
    for (const h of targets) add(self, { id: h.itemId, type: h.itemType }, ref.relation, ref.key, ref.confidence);
  }

  // Other items' references -> this item's keys.
  const referrers = await find({ ...base, keys: item.keys, relations: null });
  const titleReferrers = referrers.filter((r) => isTitleKey(r.key));
  const otherHolders = titleReferrers.length
    ? groupByKey(await find({ ...base, keys: titleReferrers.map((r) => r.key), relations: [IDENTITY_RELATION] }))
    : new Map<string, KeyMatch[]>();
  for (const r of referrers) {
    if (isTitleKey(r.key)) {
      if (r.itemType !== item.type) continue;
      const sameType = (otherHolders.get(r.key) ?? []).filter((h) => h.itemType === item.type);
      const candidates = [...sameType, { itemId: item.id, occurredAt: item.occurredAt } as KeyMatch];
      if (!titleTargets(candidates, r.occurredAt).some((c) => c.itemId === item.id)) continue;
    }
    add({ id: r.itemId, type: r.itemType }, self, r.relation, r.key, r.confidence);
  }

  // Items pointing at the same commit or branch as this one.
  const shared = item.refs.filter((r) => r.relation in SHARED_RELATIONS);
  const sharers = groupByKey(await find({ ...base, keys: shared.map((r) => r.key), relations: Object.keys(SHARED_RELATIONS) }));
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

  for (const edge of await counterpartReverts(find, item)) push(edge);
  return [...out.values()];
}

const isCounterpartRelation = (relation: string): boolean => REVERT_COUNTERPART_RELATIONS.includes(relation);

/**
 * Reverts that name the other level of a change, resolved to the counterpart of the revert's own type:
 * revert commit `reverts gh:#n` + squash commit `merged_as gh:#n`, revert PR `reverts commit:<sha>` + PR
 * `merged_as`/`contains commit:<sha>`. Both sides are refs, so either item finds the other whichever
 * arrives first: this item's reverts -> counterparts, and this item's counterpart refs -> reverts.
 */
async function counterpartReverts(find: KeyFinder, item: LinkedItem): Promise<EdgeRow[]> {
  const reverts = item.refs.filter((r) => r.relation === 'reverts' && !isTitleKey(r.key));
  const standsFor = item.refs.filter((r) => isCounterpartRelation(r.relation));
  const keys = [...reverts, ...standsFor].map((r) => r.key);
  const matches = await find({
    workspaceId: item.workspaceId,
    excludeItemId: item.id,
    keys,
    relations: ['reverts', ...REVERT_COUNTERPART_RELATIONS],
  });
  const byKey = groupByKey(matches.filter((m) => m.itemType === item.type));
  const edges: EdgeRow[] = [];
  const edge = (sourceId: string, targetId: string, key: string, confidence: number) =>
    edges.push({ sourceId, targetId, type: 'reverts', linkingKey: key, confidence });
  for (const ref of reverts) {
    const counterparts = (byKey.get(ref.key) ?? []).filter((m) => isCounterpartRelation(m.relation));
    if (counterparts.length > SHARED_KEY_LIMIT) continue;
    for (const c of counterparts) edge(item.id, c.itemId, ref.key, Math.min(ref.confidence, c.confidence));
  }
  for (const ref of standsFor) {
    const onKey = byKey.get(ref.key) ?? [];
    // The same limit as seen from the revert: every counterpart on the key, this item included.
    if (onKey.filter((m) => isCounterpartRelation(m.relation)).length + 1 > SHARED_KEY_LIMIT) continue;
    for (const r of onKey) if (r.relation === 'reverts') edge(r.itemId, item.id, ref.key, Math.min(ref.confidence, r.confidence));
  }
  return edges;
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
