import { actorsExpertIn, actorsNamed, itemsOfActors, type Queryable } from '@engram/stores';
import type { ItemFilter } from '../filters.js';
import { timed, type PathResult } from './types.js';

const ROLE_WEIGHT: Record<string, number> = { author: 1, assignee: 0.8, reviewer: 0.6, creator: 0.6, committer: 0.4, merger: 0.3, commenter: 0.3 };

/**
 * The actor path. Two signals: a person the query names (`@kovsu`, "fisker's change") -> what they
 * authored, reviewed or were assigned; and people whose expertise matches the query's terms -> their
 * work on those terms. Returns the matched actors too, for `context.relevantActors`.
 */
export function actorPath(db: Queryable, filter: ItemFilter, input: { terms: string[]; words: string[]; k: number }): Promise<PathResult & { actorIds: string[] }> {
  let actorIds: string[] = [];
  return timed(async () => {
    const [named, expert] = await Promise.all([actorsNamed(db, filter.workspaceId, input.words), actorsExpertIn(db, filter.workspaceId, input.terms, 5)]);
    const weight = new Map<string, number>();
    for (const id of named) weight.set(id, 1);
    for (const r of expert) if (!weight.has(r.id)) weight.set(r.id, Math.min(0.5, 0.2 * r.hits));
    actorIds = [...weight.keys()];
    if (actorIds.length === 0) return { scores: new Map() };
    const rows = await itemsOfActors(db, filter, actorIds, input.k * 4);
    const scores = new Map<string, number>();
    for (const r of rows) {
      const s = (weight.get(r.actor_id) ?? 0) * (ROLE_WEIGHT[r.role] ?? 0.3);
      if (s > (scores.get(r.id) ?? 0)) scores.set(r.id, s);
    }
    const top = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, input.k);
    return { scores: new Map(top) };
  }).then((r) => ({ ...r, actorIds }));
}
