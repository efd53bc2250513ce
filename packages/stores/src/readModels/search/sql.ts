import type { Queryable } from '../../db.js';
import { itemFilterSql, narrowsItems } from './filterSql.js';
import { itemEntities } from '../enrichment.js';
import { listItemMentions } from '../../repositories/clusters.js';
import { countActorItems, loadActorRoles } from '../../repositories/expertise.js';
import { actorRolesOf, itemsOfActors } from './people.js';
import { packFields } from './postingLists.js';
import { ENTITIES_PER_ITEM, type CandidateRow, type CollectionStats, type EntityMatchesRead, type ItemFilter, type PoolRow, type PostingList, type PostingsRead, type SearchReadModel } from './types.js';

const STATS_TTL_MS = 30_000;

interface PostingRow {
  id: string;
  dl: number;
  term: string;
  positions: number[] | string;
  weights: string[] | string;
}

const pgArray = (value: string): string[] => value.replace(/[{}]/g, '').split(',').filter(Boolean);

/** A tsquery matching any of the lexemes, each quoted as it is (no normalisation). */
const anyOf = (lexemes: readonly string[]): string => lexemes.map((l) => `'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' | ');

/** The search's reads as SQL over the system of record: any Postgres, any number of processes. */
export function createSqlReadModel(db: Queryable): SearchReadModel {
  const statsCache = new Map<string, { at: number; stats: CollectionStats }>();

  async function stats(workspaceId: string): Promise<CollectionStats> {
    const hit = statsCache.get(workspaceId);
    if (hit && Date.now() - hit.at < STATS_TTL_MS) return hit.stats;
    const res = await db.query<{ n: string; avg: string | null }>('SELECT count(*) AS n, avg(lexical_length) AS avg FROM items WHERE workspace_id = $1', [workspaceId]);
    const value = { documents: Number(res.rows[0]?.n ?? 0), avgLength: Number(res.rows[0]?.avg ?? 1) || 1 };
    statsCache.set(workspaceId, { at: Date.now(), stats: value });
    return value;
  }

  // Whether this database keeps the `postings` table (`POSTINGS_KEPT`): read once.
  let kept: Promise<boolean> | null = null;
  const postingsKept = (): Promise<boolean> =>
    (kept ??= db.query<{ off: boolean }>("SELECT current_setting('engram.postings', true) = 'off' AS off").then((r) => r.rows[0]?.off !== true));

  async function poolRows(filter: ItemFilter, ids: readonly string[]): Promise<Map<string, PoolRow>> {
    if (ids.length === 0) return new Map();
    const where = itemFilterSql(filter, 2);
    const res = await db.query<{ id: string; type: string; occurred_at: Date | string }>(
      `SELECT i.id, i.type, i.occurred_at FROM items i WHERE i.id = ANY($1::text[]) AND ${where.sql}`,
      [ids, ...where.params],
    );
    return new Map(res.rows.map((r): [string, PoolRow] => [r.id, { id: r.id, type: r.type, occurredAt: new Date(r.occurred_at).getTime() }]));
  }

  return {
    kind: 'sql',
    stats,

    async postings(filter, terms) {
      const collection = await stats(filter.workspaceId);
      const ids: string[] = [];
      const lengths: number[] = [];
      const ordinal = new Map<string, number>();
      const read: PostingsRead = { ...collection, lists: [], admits: () => true, itemId: (doc) => ids[doc]!, docLength: (doc) => lengths[doc]! };
      if (terms.length === 0) return read;
      const dfRes = await db.query<{ term: string; df: number }>('SELECT term, df FROM lexicon WHERE workspace_id = $1 AND term = ANY($2::text[])', [filter.workspaceId, terms]);
      const present = dfRes.rows.filter((r) => r.df > 0);
      if (present.length === 0) return read;
      const narrowed = narrowsItems(filter);
      const presentTerms = present.map((r) => r.term);
      let res: { rows: PostingRow[] };
      if (await postingsKept()) {
        const where = itemFilterSql(filter, 3);
        res = await db.query<PostingRow>(
          narrowed
            ? `SELECT p.item_id AS id, p.dl, p.term, p.positions, p.weights FROM postings p JOIN items i ON i.id = p.item_id
               WHERE p.workspace_id = $1 AND p.term = ANY($2::text[]) AND ${where.sql}`
            : 'SELECT item_id AS id, dl, term, positions, weights FROM postings WHERE workspace_id = $1 AND term = ANY($2::text[])',
          narrowed ? [filter.workspaceId, presentTerms, ...where.params] : [filter.workspaceId, presentTerms],
        );
      } else {
        // No postings table (the embedded database): the items whose vector matches any term, each unnested.
        const where = itemFilterSql(filter, 4);
        res = await db.query<PostingRow>(
          `SELECT i.id, i.lexical_length AS dl, u.lexeme AS term, u.positions, u.weights
           FROM items i, unnest(i.search_vector) AS u(lexeme, positions, weights)
           WHERE i.workspace_id = $1 AND i.search_vector @@ $3::tsquery AND u.lexeme = ANY($2::text[]) AND ${where.sql}`,
          [filter.workspaceId, presentTerms, anyOf(presentTerms), ...where.params],
        );
      }
      // Ordinals in order of first appearance; each term's postings in ascending ordinal, as the in-memory index keeps them.
      for (const r of res.rows) {
        if (ordinal.has(r.id)) continue;
        ordinal.set(r.id, ids.length);
        ids.push(r.id);
        lengths.push(r.dl);
      }
      const byTerm = new Map<string, PostingRow[]>();
      for (const row of res.rows) {
        const list = byTerm.get(row.term) ?? [];
        list.push(row);
        byTerm.set(row.term, list);
      }
      for (const { term, df } of present) {
        const rows = (byTerm.get(term) ?? []).sort((x, y) => ordinal.get(x.id)! - ordinal.get(y.id)!);
        const positionLists = rows.map((r) => (typeof r.positions === 'string' ? pgArray(r.positions).map(Number) : r.positions.map(Number)));
        const list: PostingList = {
          term,
          df: Number(df),
          count: rows.length,
          docs: new Int32Array(rows.length),
          fields: new Uint32Array(rows.length),
          posStart: new Uint32Array(rows.length + 1),
          positions: new Uint16Array(positionLists.reduce((a, p) => a + p.length, 0)),
        };
        let at = 0;
        rows.forEach((r, p) => {
          list.docs[p] = ordinal.get(r.id)!;
          list.fields[p] = packFields(typeof r.weights === 'string' ? pgArray(r.weights) : r.weights);
          list.posStart[p] = at;
          for (const x of positionLists[p]!) list.positions[at++] = x;
        });
        list.posStart[rows.length] = at;
        read.lists.push(list);
      }
      return read;
    },

    async entityMatches(filter, keys) {
      const ids: string[] = [];
      const read: EntityMatchesRead = { entities: [], admits: () => true, itemId: (doc) => ids[doc]! };
      if (keys.length === 0) return read;
      const known = await db.query<{ id: string; key: string; category: string; item_count: number }>(
        'SELECT id, key, category, item_count FROM entities WHERE workspace_id = $1 AND key = ANY($2::text[])',
        [filter.workspaceId, keys],
      );
      if (known.rows.length === 0) return read;
      const where = itemFilterSql(filter, 2);
      const narrowed = narrowsItems(filter);
      const rows = await db.query<{ id: string; entity_id: string; confidence: number }>(
        narrowed
          ? `SELECT m.item_id AS id, m.entity_id, m.confidence FROM entity_mentions m JOIN items i ON i.id = m.item_id
             WHERE m.entity_id = ANY($1::bigint[]) AND ${where.sql}`
          : 'SELECT item_id AS id, entity_id, confidence FROM entity_mentions WHERE entity_id = ANY($1::bigint[])',
        narrowed ? [known.rows.map((r) => String(r.id)), ...where.params] : [known.rows.map((r) => String(r.id))],
      );
      const ordinal = new Map<string, number>();
      const byEntity = new Map(known.rows.map((r) => [String(r.id), { id: String(r.id), key: r.key, category: r.category, itemCount: Number(r.item_count), docs: [] as number[], confidence: [] as number[] }]));
      for (const r of rows.rows) {
        const entity = byEntity.get(String(r.entity_id));
        if (!entity) continue;
        let doc = ordinal.get(r.id);
        if (doc === undefined) {
          doc = ids.length;
          ordinal.set(r.id, doc);
          ids.push(r.id);
        }
        entity.docs.push(doc);
        entity.confidence.push(Number(r.confidence));
      }
      read.entities = [...byEntity.values()].map((e) => ({ ...e, count: e.docs.length }));
      return read;
    },

    poolRows,

    itemEntities(_workspaceId, ids, perItem = ENTITIES_PER_ITEM) {
      return itemEntities(db, [...ids], perItem);
    },

    async changeRows(workspaceId, ids) {
      if (ids.length === 0) return [];
      const rows = await poolRows({ workspaceId }, ids);
      const commits = [...rows.values()].filter((r) => r.type === 'commit').map((r) => r.id);
      // The indexer orients every commit_pr edge from the pull request to the commit.
      const edges =
        commits.length === 0
          ? []
          : (await db.query<{ commit_id: string; pr_id: string }>(`SELECT target_id AS commit_id, source_id AS pr_id FROM edges WHERE type = 'commit_pr' AND target_id = ANY($1::text[])`, [commits])).rows;
      const prOf = new Map<string, string>();
      for (const e of edges) if (!prOf.has(e.commit_id) || e.pr_id < prOf.get(e.commit_id)!) prOf.set(e.commit_id, e.pr_id);
      return ids.map((id): CandidateRow | undefined => {
        const row = rows.get(id);
        const pr = prOf.get(id);
        return row && pr !== undefined ? { ...row, pr } : row;
      });
    },

    itemsOfActors: (filter, actorIds, limit) => itemsOfActors(db, filter, actorIds, limit),
    rolesOfActors: (workspaceId, actorIds) => loadActorRoles(db, workspaceId, actorIds),
    actorItemCounts: (workspaceId, actorIds) => countActorItems(db, workspaceId, actorIds),
    actorRoles: (_workspaceId, itemIds) => actorRolesOf(db, itemIds),
    itemMentions: (_workspaceId, itemIds, categories) => listItemMentions(db, itemIds, categories),

    refresh: async () => undefined,
    close: async () => undefined,
  };
}
