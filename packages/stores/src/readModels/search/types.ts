import type { MentionRow } from '../../repositories/clusters.js';
import type { ActorRole as ActorItemRole } from '../../repositories/expertise.js';
import type { VectorFilter } from '../../vector/types.js';

/** Filters every retrieval read applies inside the read, never after a top-k cut (the vector store's shape). */
export type ItemFilter = VectorFilter;

/** Collection statistics BM25 needs. */
export interface CollectionStats {
  documents: number;
  avgLength: number;
}

/**
 * One query term's postings, columnar: posting `p` is document `docs[p]` (an ordinal of the read that
 * returned it), with its term frequency per field packed in `fields[p]` (title A in bits 0-7, body B in
 * 8-15, paths and labels C in 16-23, other D in 24-31; each saturating at 255) and its token positions
 * `positions[posStart[p] .. posStart[p + 1])`. Only postings `0 .. count` are meaningful, in ascending
 * document order.
 */
export interface PostingList {
  term: string;
  /** Documents of the workspace holding the term (unfiltered): the idf's document frequency. */
  df: number;
  count: number;
  docs: Int32Array;
  fields: Uint32Array;
  posStart: Uint32Array;
  positions: Uint16Array;
}

/**
 * The postings of a query's terms. `admits(doc)` says whether a posting's document counts: it passes
 * the filter and is the current version of its item (an in-memory index keeps a replaced item's postings
 * until it compacts them). Ordinals are only meaningful within one result.
 */
export interface PostingsRead extends CollectionStats {
  lists: PostingList[];
  admits(doc: number): boolean;
  itemId(doc: number): string;
  docLength(doc: number): number;
  /** Set where the read's ordinals outlive it (the in-memory index): see `StableOrdinals`. */
  stable?: StableOrdinals;
}

/**
 * A read whose ordinals outlive it: a document's ordinal, item id and length never change (an in-memory
 * index numbers each version of an item anew), so a scorer in another thread can keep `ids` and
 * `lengths` and be sent only what was appended since.
 */
export interface StableOrdinals {
  /** Names the ordinal space (one workspace's index in this process); a new space starts from nothing. */
  space: number;
  /** Item id and length by ordinal, append-only. */
  ids: readonly string[];
  lengths: readonly number[];
  /** Where the filter is the workspace alone: which ordinals are current documents (`admits(doc)` is `live[doc] === 1`). */
  live?: Uint8Array;
}

/**
 * A known entity the query names, and the documents that mention it, columnar: mention `m` is document
 * `docs[m]` (an ordinal of the read that returned it) with confidence `confidence[m]`, for `m < count`.
 */
export interface EntityMatch {
  id: string;
  key: string;
  category: string;
  /** Items of the workspace that mention it (unfiltered): the idf's document frequency. */
  itemCount: number;
  count: number;
  docs: ArrayLike<number>;
  /** Each mention's confidence, by position in `docs`; one number when they all have the same. */
  confidence: ArrayLike<number> | number;
}

/**
 * The known entities with the query's keys. `admits(doc)` says whether a mention's document counts (it
 * passes the filter and is the current version of its item), as for postings; `itemId` names a document.
 * An entity mentioned by thousands of items is read without an object per mention.
 */
export interface EntityMatchesRead {
  entities: EntityMatch[];
  admits(doc: number): boolean;
  itemId(doc: number): string;
}

/** What fusion needs of a pooled item. */
export interface PoolRow {
  id: string;
  type: string;
  occurredAt: number;
}

/** A pooled item's row and, for a commit that belongs to a pull request, that pull request's id (the lowest when several). */
export interface CandidateRow extends PoolRow {
  pr?: string;
}

/** One (item, person, role) row of a person's work: the actor path and a search's people read these. */
export interface ActorItemRow {
  id: string;
  actorId: string;
  role: string;
}

/** Entities a search result lists at most. */
export const ENTITIES_PER_ITEM = 8;

/**
 * The reads the search's first stage makes, by retrieval path. Two implementations: SQL over the
 * system of record (any Postgres), and an in-memory index kept in step with it through the items'
 * change feed (the embedded default, where this process owns the database).
 */
export interface SearchReadModel {
  readonly kind: 'sql' | 'memory';
  stats(workspaceId: string): Promise<CollectionStats>;
  /** Postings of these terms (documents that pass the filter, or every document: `admits` filters). */
  postings(filter: ItemFilter, terms: readonly string[]): Promise<PostingsRead>;
  /** Known entities with these keys, with the items that mention each (`admits` filters). */
  entityMatches(filter: ItemFilter, keys: readonly string[]): Promise<EntityMatchesRead>;
  /** Id, type and date of the items of `ids` that pass the filter. */
  poolRows(filter: ItemFilter, ids: readonly string[]): Promise<Map<string, PoolRow>>;
  /** Entities of each of these items for a result's `entities`: most confident first, then the rarer, then by key. */
  itemEntities(workspaceId: string, ids: readonly string[], perItem?: number): Promise<Map<string, { key: string; category: string }[]>>;
  /**
   * The row of each of `ids`, at the same position (undefined where the workspace has no such item), with
   * a commit's pull request: the pool's one read of every candidate, so an array and no map. `docs`, where
   * given, is each id's document ordinal as this model's postings or entity matches named it (-1: unknown),
   * a hint checked against the id.
   */
  changeRows(workspaceId: string, ids: readonly string[], docs?: readonly number[]): Promise<(CandidateRow | undefined)[]>;
  /**
   * The newest `limit` (item, actor, role) rows of these actors' items that pass the filter: newest item
   * first, ties by item id, then role, then actor id (binary order).
   */
  itemsOfActors(filter: ItemFilter, actorIds: readonly string[], limit: number): Promise<ActorItemRow[]>;
  /**
   * Every (item, actor, role) row of these actors' live items, in no set order: what an expertise pass
   * reads of its people (a prolific author's whole history, tens of thousands of rows at 100k items).
   */
  rolesOfActors(workspaceId: string, actorIds: readonly string[]): Promise<ActorItemRole[]>;
  /**
   * How many distinct live items each of these actors has (actors with none left out): what an expertise
   * pass needs of a bot, whose rows (often the workspace's most) it does not read.
   */
  actorItemCounts(workspaceId: string, actorIds: readonly string[]): Promise<Map<string, number>>;
  /** The (actor, role) rows of each of these items that has any, in no set order. */
  actorRoles(workspaceId: string, itemIds: readonly string[]): Promise<Map<string, Omit<ActorItemRow, 'id'>[]>>;
  /**
   * The mentions of entities in `categories` of each of these items that has any, in (category, key)
   * order, each with its entity's document frequency: what the re-cluster builds an item's topical
   * feature from.
   */
  itemMentions(workspaceId: string, itemIds: readonly string[], categories: readonly string[]): Promise<Map<string, MentionRow[]>>;
  /** Brings an in-memory index up to date with every committed write (no-op for SQL). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}
