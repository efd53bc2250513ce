import type { Queryable } from '@engram/stores';
import { itemFilterSql, type ItemFilter } from '../filters.js';
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
    const named = await db.query<{ actor_id: string }>(
      `SELECT DISTINCT actor_id FROM actor_identities
       WHERE workspace_id = $1 AND kind <> 'email' AND value = ANY($2::text[])`,
      [filter.workspaceId, input.words],
    );
    const expert = await db.query<{ id: string; hits: number }>(
      `SELECT a.id, count(*)::int AS hits FROM actors a, unnest(a.expertise_domains) d
       WHERE a.workspace_id = $1 AND lower(d) = ANY($2::text[]) GROUP BY a.id ORDER BY hits DESC LIMIT 5`,
      [filter.workspaceId, input.terms],
    );
    const weight = new Map<string, number>();
    for (const r of named.rows) weight.set(r.actor_id, 1);
    for (const r of expert.rows) if (!weight.has(r.id)) weight.set(r.id, Math.min(0.5, 0.2 * r.hits));
    actorIds = [...weight.keys()];
    if (actorIds.length === 0) return { scores: new Map() };
    const where = itemFilterSql(filter, 2);
    const res = await db.query<{ id: string; actor_id: string; role: string; occurred_at: Date }>(
      `SELECT i.id, ia.actor_id, ia.role, i.occurred_at FROM item_actors ia JOIN items i ON i.id = ia.item_id
       WHERE ia.actor_id = ANY($1::text[]) AND ${where.sql}
       ORDER BY i.occurred_at DESC LIMIT ${input.k * 4}`,
      [actorIds, ...where.params],
    );
    const scores = new Map<string, number>();
    for (const r of res.rows) {
      const s = (weight.get(r.actor_id) ?? 0) * (ROLE_WEIGHT[r.role] ?? 0.3);
      if (s > (scores.get(r.id) ?? 0)) scores.set(r.id, s);
    }
    const top = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, input.k);
    return { scores: new Map(top) };
  }).then((r) => ({ ...r, actorIds }));
}
