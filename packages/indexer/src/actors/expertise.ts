import type { Queryable } from '@engram/stores';
import { titleKeywords } from '../entities/keywords.js';
import { inverseDocumentFrequency, type TopicalCategory } from '../clusters/features.js';
import { countItems, loadItemTexts, loadTopicalEntities } from '../clusters/itemTopics.js';

/**
 * What each actor knows about, from what they authored (weight 1), reviewed (0.6) and committed or
 * merged (0.4): the path areas, languages, packages, labels and keywords of those items and the
 * topics of their clusters, each weighted by its IDF in the workspace so that an area everyone
 * touches (`tests/format`) says little. Bots keep their row and item count but get no expertise.
 */
const ROLE_WEIGHT: Readonly<Record<string, number>> = {
  author: 1, creator: 1, reviewer: 0.6, assignee: 0.5, merger: 0.4, committer: 0.4, commenter: 0.3,
};

const KIND_WEIGHT: Readonly<Record<TopicalCategory | 'topic', number>> = {
  path: 1, language: 1, package: 0.8, topic: 0.5, label: 0.5, keyword: 0.6,
};

export const EXPERTISE_DOMAINS = 6;
const EXPERTISE_KEPT = 20;
/** A cluster topic counts only for clusters this big; a singleton's topic is just one title. */
const MIN_TOPIC_CLUSTER = 3;

export interface ExpertiseEntry {
  domain: string;
  score: number;
  kind: TopicalCategory | 'topic';
}

export const isBot = (names: readonly string[]): boolean => names.some((n) => /\[bot\]$/i.test(n.trim()));

/** Recomputes expertise of the given actors (all of the workspace's when omitted); returns how many were updated. */
export async function refreshExpertise(db: Queryable, workspaceId: string, actorIds?: string[]): Promise<number> {
  const actors = (
    await db.query<{ id: string; names: string[]; flagged: boolean }>(
      // `is_bot` (migration 002) is read through to_jsonb so this works before and after the column exists.
      `SELECT a.id, array_remove(array_agg(i.value), NULL) || a.display_name AS names,
         bool_or(coalesce((to_jsonb(a) ->> 'is_bot')::boolean, false)) AS flagged
       FROM actors a LEFT JOIN actor_identities i ON i.actor_id = a.id
       WHERE a.workspace_id = $1 AND ($2::text[] IS NULL OR a.id = ANY($2::text[])) GROUP BY a.id`,
      [workspaceId, actorIds ?? null],
    )
  ).rows;
  if (actors.length === 0) return 0;
  const roles = (
    await db.query<{ actor_id: string; item_id: string; role: string }>(
      'SELECT actor_id, item_id, role FROM item_actors WHERE workspace_id = $1 AND actor_id = ANY($2::text[])',
      [workspaceId, actors.map((a) => a.id)],
    )
  ).rows;
  const involvement = new Map<string, Map<string, { weight: number; authored: boolean }>>();
  for (const r of roles) {
    const items = involvement.get(r.actor_id) ?? new Map<string, { weight: number; authored: boolean }>();
    const before = items.get(r.item_id) ?? { weight: 0, authored: false };
    const weight = ROLE_WEIGHT[r.role] ?? 0.3;
    items.set(r.item_id, { weight: Math.max(before.weight, weight), authored: before.authored || weight === 1 });
    involvement.set(r.actor_id, items);
  }
  const itemIds = [...new Set(roles.map((r) => r.item_id))];
  const itemCount = await countItems(db, workspaceId);
  const entities = await loadTopicalEntities(db, workspaceId, itemIds, itemCount);
  const topics = await loadTopics(db, itemIds, itemCount);

  const updates: { id: string; expertise: ExpertiseEntry[]; domains: string[]; item_count: number }[] = [];
  for (const actor of actors) {
    const items = involvement.get(actor.id) ?? new Map<string, { weight: number; authored: boolean }>();
    if (actor.flagged || isBot(actor.names)) {
      updates.push({ id: actor.id, expertise: [], domains: [], item_count: items.size });
      continue;
    }
    const scores = new Map<string, ExpertiseEntry>();
    const add = (domain: string, kind: ExpertiseEntry['kind'], value: number) => {
      const key = domain.toLowerCase();
      const entry = scores.get(key) ?? { domain, kind, score: 0 };
      entry.score += value;
      scores.set(key, entry);
    };
    for (const [itemId, { weight }] of items) {
      const found = entities.get(itemId) ?? [];
      // An item with 300 changed files must not outweigh 30 focused ones.
      const share = weight / Math.sqrt(Math.max(1, found.length));
      for (const e of found) add(e.key, e.category, share * e.confidence * e.idf * KIND_WEIGHT[e.category]);
      const topic = topics.get(itemId);
      if (topic) add(topic.topic, 'topic', weight * topic.idf * KIND_WEIGHT.topic);
    }
    let expertise = rank(scores);
    if (expertise.length === 0 && [...items.values()].some((i) => i.authored)) expertise = await fallback(db, [...items.keys()]);
    updates.push({ id: actor.id, expertise: expertise.slice(0, EXPERTISE_KEPT), domains: readableDomains(expertise), item_count: items.size });
  }
  await db.query(
    `UPDATE actors a SET expertise = u.expertise, expertise_domains = ARRAY(SELECT jsonb_array_elements_text(u.domains)),
       item_count = u.item_count, updated_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS u(id text, expertise jsonb, domains jsonb, item_count int) WHERE a.id = u.id`,
    [JSON.stringify(updates)],
  );
  return updates.length;
}

/**
 * The topic of each item's cluster as one readable domain: the cluster's first keyword (a cluster's
 * `topic` can be a list or a title, which reads badly among expertise domains).
 */
async function loadTopics(db: Queryable, itemIds: string[], itemCount: number): Promise<Map<string, { topic: string; idf: number }>> {
  const res = await db.query<{ item_id: string; topic: string; member_count: number }>(
    `SELECT m.item_id, c.keywords[1] AS topic, c.member_count FROM cluster_members m JOIN clusters c ON c.id = m.cluster_id
     WHERE m.item_id = ANY($1::text[]) AND c.member_count >= $2 AND cardinality(c.keywords) > 0`,
    [itemIds, MIN_TOPIC_CLUSTER],
  );
  return new Map(res.rows.map((r) => [r.item_id, { topic: r.topic, idf: inverseDocumentFrequency(itemCount, r.member_count) }]));
}

function rank(scores: Map<string, ExpertiseEntry>): ExpertiseEntry[] {
  const list = [...scores.values()].filter((e) => e.score > 0).sort((a, b) => b.score - a.score || a.domain.localeCompare(b.domain));
  const top = list[0]?.score ?? 1;
  return list.map((e) => ({ ...e, score: Math.round((e.score / top) * 1000) / 1000 }));
}

/** Top domains, skipping a path whose ancestor or descendant is already listed. */
function readableDomains(expertise: readonly ExpertiseEntry[]): string[] {
  const chosen: string[] = [];
  for (const { domain } of expertise) {
    if (chosen.length >= EXPERTISE_DOMAINS) break;
    const nested = chosen.some((c) => c.startsWith(`${domain}/`) || domain.startsWith(`${c}/`));
    if (!nested && !chosen.includes(domain)) chosen.push(domain);
  }
  return chosen;
}

/** When no entity says anything, the words of the actor's own titles do (never an empty profile). */
async function fallback(db: Queryable, itemIds: string[]): Promise<ExpertiseEntry[]> {
  const scores = new Map<string, ExpertiseEntry>();
  for (const { title } of (await loadItemTexts(db, itemIds)).values()) {
    const words = titleKeywords(title).map((k) => k.keyword);
    const picked = words.length > 0 ? words : title.toLowerCase().split(/\s+/).filter((w) => w.length > 2).slice(0, 3);
    for (const word of picked) {
      const entry = scores.get(word) ?? { domain: word, kind: 'keyword' as const, score: 0 };
      entry.score += 1;
      scores.set(word, entry);
    }
  }
  return rank(scores);
}
