import { actorCards, actorsOf, clusterCards, clustersOf, type ActorContext, type ClusterContext, type Db, type SearchReadModel } from '@engram/stores';
import { AGGREGATE_STALENESS_FACTOR, DEFAULT_SNAPSHOT_STALENESS_MS, derive, snapshotAtRest, type SharedSnapshots, type Snapshot } from '../paths/atRest.js';

const ROLE_SCORE: Record<string, number> = { author: 3, reviewer: 2 };
const CONTEXT_SIZE = 5;

/**
 * A search's context (the clusters and people behind a page), read from per-workspace snapshots kept
 * near-real-time (`snapshotAtRest`) of the clusters and people, with each page item's people from the
 * read model, and per query when no snapshot is recent enough; both answer the same for the same rows, in
 * the same order (`clustersOf` and `actorsOf` in `@engram/stores` are the per-query reads).
 */
export function createContextReader(db: Db, read: SearchReadModel, shared: SharedSnapshots, maxStaleMs?: number) {
  // Cluster cards follow `clusters`, which every indexing batch writes (centroids and member counts, which
  // the context does not show), while what it shows (topic, summary, keywords) changes with a re-cluster's
  // labels: they get the aggregates' bound. At the context's own, during a 100k import under 16 clients a
  // reload (0.14 s) landed past the bound every batch and searches read the page's clusters per query.
  const clusterCardsOf = snapshotAtRest(db, async (workspaceId) => new Map((await clusterCards(db, workspaceId)).map((c) => [c.id, c])), {
    maxStaleMs: AGGREGATE_STALENESS_FACTOR * (maxStaleMs ?? DEFAULT_SNAPSHOT_STALENESS_MS),
    tables: ['clusters'],
  });
  const clusterOfItem = derive(shared.clusterMembership, (membership) => membership.clusterOf);
  const actorCardsOf = snapshotAtRest(db, async (workspaceId) => new Map((await actorCards(db, workspaceId)).map((a) => [a.id, a])), { maxStaleMs, tables: ['actors'] });
  const clusters = both(clusterCardsOf, clusterOfItem, (cards, clusterOf) => ({ cards, clusterOf }));

  return {
    /** Clusters of the page's items (first: the best-ranked item's), then the cluster path's clusters. */
    async clusters(workspaceId: string, pageIds: string[], extraClusterIds: string[]): Promise<ClusterContext[]> {
      const snapshot = clusters.get(workspaceId);
      if (!snapshot) return clustersOf(db, pageIds, extraClusterIds);
      const { cards, clusterOf } = await snapshot;
      const ranked: string[] = [];
      for (const id of [...pageIds.map((i) => clusterOf.get(i)), ...extraClusterIds]) if (id && cards.has(id) && !ranked.includes(id)) ranked.push(id);
      return ranked.slice(0, CONTEXT_SIZE).map((id) => cards.get(id)!);
    },
    /** People behind the page's items (authors weigh 3, reviewers 2, other roles 1) and the actor path's matches (+5); bots left out. */
    async actors(workspaceId: string, pageIds: string[], extraActorIds: string[]): Promise<ActorContext[]> {
      const snapshot = actorCardsOf.get(workspaceId);
      if (!snapshot) return actorsOf(db, pageIds, extraActorIds);
      const [cards, rolesOf] = await Promise.all([snapshot, read.actorRoles(workspaceId, [...new Set(pageIds)])]);
      const score = new Map<string, number>();
      for (const roles of rolesOf.values()) for (const { actorId, role } of roles) score.set(actorId, (score.get(actorId) ?? 0) + (ROLE_SCORE[role] ?? 1));
      // An actor the path matched with no role on the page scores 1 + 5, as the SQL's outer join does.
      for (const id of new Set(extraActorIds)) score.set(id, (score.get(id) ?? 1) + 5);
      return [...score]
        .flatMap(([id, s]) => {
          const card = cards.get(id);
          return card && !card.isBot ? [{ card, s }] : [];
        })
        .sort((a, b) => b.s - a.s || b.card.itemCount - a.card.itemCount || (a.card.id < b.card.id ? -1 : a.card.id > b.card.id ? 1 : 0))
        .slice(0, CONTEXT_SIZE)
        .map(({ card }) => ({ id: card.id, displayName: card.displayName, expertiseDomains: card.expertiseDomains }));
    },
  };
}
export type ContextReader = ReturnType<typeof createContextReader>;

/** Two snapshots together, or null when either must be read per query. */
function both<A, B, C>(a: Snapshot<A>, b: Snapshot<B>, join: (a: A, b: B) => C): Snapshot<C> {
  return {
    get(workspaceId) {
      const x = a.get(workspaceId);
      const y = b.get(workspaceId);
      return x && y ? Promise.all([x, y]).then(([p, q]) => join(p, q)) : null;
    },
  };
}
