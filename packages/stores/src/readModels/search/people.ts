import { isAutomationName } from '@engram/contracts';
import type { Queryable } from '../../db.js';
import { CENTROID_HEX, parseCentroid } from '../../repositories/clusters.js';
import { itemFilterSql } from './filterSql.js';
import { pgNumberArray, pgTextArray } from './pgArrays.js';
import type { ActorItemRow, ItemFilter } from './types.js';

/** Actors of the workspace that a word of the question names (a login, a name; not an e-mail). */
export async function actorsNamed(db: Queryable, workspaceId: string, words: readonly string[]): Promise<string[]> {
  const res = await db.query<{ actor_id: string }>(
    `SELECT DISTINCT actor_id FROM actor_identities WHERE workspace_id = $1 AND kind <> 'email' AND value = ANY($2::text[])`,
    [workspaceId, words],
  );
  return res.rows.map((r) => r.actor_id);
}

/** The `limit` actors whose expertise domains hold most of these terms, with how many they hold. */
export async function actorsExpertIn(db: Queryable, workspaceId: string, terms: readonly string[], limit: number): Promise<{ id: string; hits: number }[]> {
  const res = await db.query<{ id: string; hits: number }>(
    `SELECT a.id, count(*)::int AS hits FROM actors a, unnest(a.expertise_domains) d
     WHERE a.workspace_id = $1 AND lower(d) = ANY($2::text[]) GROUP BY a.id ORDER BY hits DESC LIMIT $3`,
    [workspaceId, terms, limit],
  );
  return res.rows;
}

/** `SearchReadModel.itemsOfActors` as one statement: the newest `limit` (item, actor, role) rows of these actors' items that pass the filter. */
export async function itemsOfActors(db: Queryable, filter: ItemFilter, actorIds: readonly string[], limit: number): Promise<ActorItemRow[]> {
  if (actorIds.length === 0 || !(limit >= 1)) return [];
  const where = itemFilterSql(filter, 2);
  const res = await db.query<{ id: string; actor_id: string; role: string }>(
    `SELECT i.id, ia.actor_id, ia.role FROM item_actors ia JOIN items i ON i.id = ia.item_id
     WHERE ia.actor_id = ANY($1::text[]) AND ${where.sql}
     ORDER BY i.occurred_at DESC, i.id COLLATE "C", ia.role COLLATE "C", ia.actor_id COLLATE "C" LIMIT ${Math.floor(limit)}`,
    [actorIds, ...where.params],
  );
  return res.rows.map((r) => ({ id: r.id, actorId: r.actor_id, role: r.role }));
}

/** `SearchReadModel.actorRoles` as one statement: the (actor, role) rows of each of these items. */
export async function actorRolesOf(db: Queryable, itemIds: readonly string[]): Promise<Map<string, Omit<ActorItemRow, 'id'>[]>> {
  const out = new Map<string, Omit<ActorItemRow, 'id'>[]>();
  if (itemIds.length === 0) return out;
  const res = await db.query<{ item_id: string; actor_id: string; role: string }>('SELECT item_id, actor_id, role FROM item_actors WHERE item_id = ANY($1::text[])', [itemIds]);
  for (const r of res.rows) {
    let rows = out.get(r.item_id);
    if (!rows) out.set(r.item_id, (rows = []));
    rows.push({ actorId: r.actor_id, role: r.role });
  }
  return out;
}

/** The workspace's clusters with a centroid: each one's version (moves with every centroid write) and size. */
export async function clusterCentroidVersions(db: Queryable, workspaceId: string): Promise<{ id: string; version: string; memberCount: number }[]> {
  const res = await db.query<{ id: string; version: string; member_count: number }>(
    'SELECT id, updated_at::text AS version, member_count FROM clusters WHERE workspace_id = $1 AND member_count > 0 AND centroid IS NOT NULL',
    [workspaceId],
  );
  return res.rows.map((r) => ({ id: r.id, version: r.version, memberCount: r.member_count }));
}

/** These clusters' centroids with their versions (read together, so a centroid is never paired with another write's version). */
export async function clusterCentroidsById(db: Queryable, ids: readonly string[]): Promise<{ id: string; version: string; vector: Float32Array }[]> {
  if (ids.length === 0) return [];
  const res = await db.query<{ id: string; version: string; centroid: string | null }>(
    `SELECT id, updated_at::text AS version, ${CENTROID_HEX} AS centroid FROM clusters WHERE id = ANY($1::text[]) AND centroid IS NOT NULL`,
    [ids],
  );
  return res.rows.flatMap((r) => {
    const vector = parseCentroid(r.centroid);
    return vector ? [{ id: r.id, version: r.version, vector }] : [];
  });
}

/** Members of these clusters that pass the filter, with their similarity to their cluster. */
export async function clusterMembers(db: Queryable, filter: ItemFilter, clusterIds: readonly string[]): Promise<{ id: string; clusterId: string; similarity: number }[]> {
  const where = itemFilterSql(filter, 2);
  const res = await db.query<{ id: string; cluster_id: string; similarity: number }>(
    `SELECT i.id, m.cluster_id, m.similarity FROM cluster_members m JOIN items i ON i.id = m.item_id
     WHERE m.cluster_id = ANY($1::text[]) AND ${where.sql}`,
    [clusterIds, ...where.params],
  );
  return res.rows.map((r) => ({ id: r.id, clusterId: r.cluster_id, similarity: r.similarity }));
}

/** A workspace's people as the actor path matches them: identity values (not e-mails) and expertise domains. */
export async function actorDirectory(db: Queryable, workspaceId: string): Promise<{ identities: { actorId: string; value: string }[]; domains: { actorId: string; domains: string[] }[] }> {
  const [identities, actors] = await Promise.all([
    db.query<{ actor_id: string; value: string }>(`SELECT actor_id, value FROM actor_identities WHERE workspace_id = $1 AND kind <> 'email'`, [workspaceId]),
    db.query<{ id: string; expertise_domains: string[] }>('SELECT id, expertise_domains FROM actors WHERE workspace_id = $1 AND cardinality(expertise_domains) > 0', [workspaceId]),
  ]);
  return {
    identities: identities.rows.map((r) => ({ actorId: r.actor_id, value: r.value })),
    domains: actors.rows.map((r) => ({ actorId: r.id, domains: r.expertise_domains })),
  };
}

/**
 * Members a statement of the cluster snapshot's load reads, about: at 100k items the single statement took
 * up to 0.43 s on the embedded database's one connection during an import (0.19 s at rest), and every
 * search's read waited behind it; in pages of 10,000 the longest took 29 ms at rest (262 ms in all), and an
 * API request's statements run between pages.
 */
const MEMBERSHIP_PAGE_ROWS = 10_000;

/**
 * Every cluster member of the workspace, with its similarity to its cluster, cluster by cluster (what a
 * snapshot of the cluster path holds): one row a cluster, not a row a member. Read in pages of clusters
 * holding about `pageRows` members together, not in one transaction: a re-cluster swapped in between two
 * pages leaves the clusters of the later pages out, and its writes to `cluster_members` reload the snapshot.
 */
export async function clusterMembership(db: Queryable, workspaceId: string, pageRows = MEMBERSHIP_PAGE_ROWS): Promise<{ clusterId: string; ids: string[]; similarities: number[] }[]> {
  const clusters = await db.query<{ id: string; member_count: number }>('SELECT id, member_count FROM clusters WHERE workspace_id = $1 ORDER BY id', [workspaceId]);
  const out: { clusterId: string; ids: string[]; similarities: number[] }[] = [];
  for (const page of pagesOf(clusters.rows, (c) => Number(c.member_count), pageRows)) {
    const res = await db.query<{ cluster_id: string; ids: string; similarities: string }>(
      'SELECT cluster_id, array_agg(item_id)::text AS ids, array_agg(similarity)::text AS similarities FROM cluster_members WHERE cluster_id = ANY($1::text[]) AND workspace_id = $2 GROUP BY cluster_id',
      [page.map((c) => c.id), workspaceId],
    );
    for (const r of res.rows) out.push({ clusterId: r.cluster_id, ids: pgTextArray(r.ids), similarities: pgNumberArray(r.similarities).map(Number) });
  }
  return out;
}

/** `rows` in consecutive pages whose weights add up to about `per` (a page holds at least one row). */
function pagesOf<T>(rows: readonly T[], weight: (row: T) => number, per: number): T[][] {
  const pages: T[][] = [];
  let page: T[] = [];
  let sum = 0;
  for (const row of rows) {
    page.push(row);
    sum += weight(row);
    if (sum >= per) {
      pages.push(page);
      page = [];
      sum = 0;
    }
  }
  if (page.length > 0) pages.push(page);
  return pages;
}

/** Every cluster of the workspace as a search's context shows it (what a snapshot of the context holds). */
export async function clusterCards(db: Queryable, workspaceId: string): Promise<{ id: string; topic: string | null; summary: string | null; keywords: string[]; memberCount: number }[]> {
  const res = await db.query<{ id: string; topic: string | null; summary: string | null; keywords: string[]; member_count: number }>(
    'SELECT id, topic, summary, keywords, member_count FROM clusters WHERE workspace_id = $1',
    [workspaceId],
  );
  return res.rows.map((r) => ({ id: r.id, topic: r.topic, summary: r.summary, keywords: r.keywords, memberCount: r.member_count }));
}

/**
 * Every person of the workspace as a search's context shows and ranks them (what a snapshot of the
 * context holds). `isBot`: the indexer flagged the actor, or its display name says automation (a name
 * flagged before the rule knew it).
 */
export async function actorCards(db: Queryable, workspaceId: string): Promise<{ id: string; displayName: string; expertiseDomains: string[]; itemCount: number; isBot: boolean }[]> {
  const res = await db.query<{ id: string; display_name: string; expertise_domains: string[]; item_count: number; is_bot: boolean }>(
    'SELECT id, display_name, expertise_domains, item_count, is_bot FROM actors WHERE workspace_id = $1',
    [workspaceId],
  );
  return res.rows.map((r) => ({
    id: r.id,
    displayName: r.display_name,
    expertiseDomains: r.expertise_domains,
    itemCount: Number(r.item_count),
    isBot: r.is_bot || isAutomationName(r.display_name),
  }));
}
