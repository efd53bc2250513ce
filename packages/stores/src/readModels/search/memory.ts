import { changesSince, createFollower, FEED_START, feedProbe, feedStart, type FeedPosition } from '../../changeFeed.js';
import type { Db, Queryable } from '../../db.js';
import { readCommitted } from '../../pglite/thread.js';
import { itemPredicate, narrowsItems } from './filterSql.js';
import { actorRolesOf } from './people.js';
import { pgNumberArray } from './pgArrays.js';
import { GrowingPostingList, parseTsvector, type DocumentTerm } from './postingLists.js';
import { Interner } from '../../interner.js';
import type { MentionRow } from '../../repositories/clusters.js';
import type { ActorRole as ActorItemRole } from '../../repositories/expertise.js';
import { ENTITIES_PER_ITEM, type ActorItemRow, type CandidateRow, type CollectionStats, type EntityMatch, type EntityMatchesRead, type PoolRow, type PostingsRead, type SearchReadModel } from './types.js';

/** Items read per page when loading: bounded work between yields to the event loop. */
const PAGE = 1000;
/**
 * Items read per page when catching up with writes: a search waits for it, and PGlite decodes a page's
 * postings (about a hundred rows an item) on this thread, so pages stay small while an import runs.
 */
const CATCH_UP_PAGE = 256;
/** Items applied between two turns of the event loop. */
const APPLY_ITEMS_BETWEEN_YIELDS = 32;
/** The tables of the change feed a catch-up reads: writes to others (expertise, clusters) need none. */
const CHANGE_FEED = ['items', 'item_tombstones'];
/** How often the model looks for writes no read has caught up with yet (0: only before reads). */
const DEFAULT_FOLLOW_MS = 1_000;

interface EntityEntry {
  id: string;
  key: string;
  category: string;
  docs: number[];
  /**
   * Each mention's confidence, by position in `docs`; one number when every mention has the same (most
   * entities: at 100k items 69k of 117k, with 73% of the mentions).
   */
  confidence: number | number[];
  live: number;
  dead: number;
}

/**
 * A person's (item, role) rows as `doc * ROLE_SLOTS + role` (small integers: no object a row), newest item
 * first once `sorted` (ties by item id, then role): rows are appended as items arrive and sorted when next
 * read, which is one merge of two runs when a few were appended to a sorted list.
 */
interface ActorEntry {
  id: string;
  rows: number[];
  sorted: boolean;
  dead: number;
}

/** Roles a workspace's rows can name (the contract has seven): a row packs its role below this. */
const ROLE_SLOTS = 64;
/** The ordinal (a document, or an index into `actors`) and the role (an index into `roles`) a packed row holds. */
const ordinalOf = (packed: number): number => Math.floor(packed / ROLE_SLOTS);
const roleAt = (packed: number): number => packed % ROLE_SLOTS;

/** Whether a list's dead entries are enough of it to drop them (at least 32, and half the list). */
const mostlyDead = (dead: number, length: number): boolean => dead >= 32 && dead * 2 >= length;

/** The most items an entity may have for `trimGrown` to give its arrays their exact length. */
const TRIM_UP_TO = 128;

let nextSpace = 1;

/** One workspace's documents (a document is one version of an item) and what search reads of them. */
class WorkspaceIndex {
  /** This index's ordinal space (`StableOrdinals.space`): unique in the process. */
  readonly space = nextSpace++;
  readonly ids: string[] = [];
  readonly ordOf = new Map<string, number>();
  alive = new Uint8Array(1024);
  readonly length: number[] = [];
  readonly type: string[] = [];
  readonly source: string[] = [];
  readonly occurredAt: number[] = [];
  readonly actorNames: (readonly string[])[] = [];
  /** Each document's terms (indexes into `lists`), end to end. */
  readonly termsOf = new DocSpans();
  /**
   * Each document's mentioned entities (indexes into `entities`). A mention's confidence is the entity's
   * (`mentionConfidence`): a second copy here, by document, was 16 MB at 100k items.
   */
  readonly entitiesOf = new DocSpans();
  readonly lists: GrowingPostingList[] = [];
  readonly termIndex = new Map<string, number>();
  readonly entities: EntityEntry[] = [];
  readonly entityIndex = new Map<string, number>();
  /** Entities by key: the entity itself where one has the key (most), else every one that has it (a key in several categories). */
  private readonly entitiesByKey = new Map<string, number | number[]>();
  /** Each document's (person, role) rows, as `actor * ROLE_SLOTS + role` (indexes into `actors` and `roles`). */
  readonly rolesOf = new DocSpans();
  readonly actors: ActorEntry[] = [];
  readonly actorIndex = new Map<string, number>();
  readonly roles: string[] = [];
  private readonly roleIndex = new Map<string, number>();
  /** commit -> its pull requests, and the reverse, from `commit_pr` edges. */
  readonly prsOf = new LinkSets();
  readonly commitsOf = new LinkSets();
  /** Each commit's lowest pull request id by the commit's document, from `prsOf` (`changeRows` reads it for every pooled commit). */
  readonly prOfDoc: (string | undefined)[] = [];
  documents = 0;
  totalLength = 0;
  /** One copy of each type, source, category, role and list of actor names. */
  private readonly interned = new Interner();
  /** Lists and entities that lost a document since the last `compactRetired`. */
  private readonly retiredLists = new Set<GrowingPostingList>();
  private readonly retiredEntities = new Set<EntityEntry>();
  private readonly retiredActors = new Set<ActorEntry>();
  /** Entities that gained a mention since the last `trimGrown`. */
  private readonly grownEntities = new Set<EntityEntry>();

  isLive = (doc: number): boolean => this.alive[doc] === 1;

  retire(itemId: string): void {
    const doc = this.ordOf.get(itemId);
    if (doc === undefined) return;
    this.ordOf.delete(itemId);
    this.alive[doc] = 0;
    this.documents--;
    this.totalLength -= this.length[doc]!;
    const terms = this.termsOf;
    for (let i = terms.start(doc), end = terms.end(doc); i < end; i++) {
      const list = this.lists[terms.values[i]!]!;
      list.retire();
      this.retiredLists.add(list);
    }
    const mentions = this.entitiesOf;
    for (let i = mentions.start(doc), end = mentions.end(doc); i < end; i++) {
      const entry = this.entities[mentions.values[i]!]!;
      entry.live--;
      entry.dead++;
      this.retiredEntities.add(entry);
    }
    const roles = this.rolesOf;
    for (let i = roles.start(doc), end = roles.end(doc); i < end; i++) {
      const entry = this.actors[ordinalOf(roles.values[i]!)]!;
      entry.dead++;
      this.retiredActors.add(entry);
    }
  }

  add(row: ItemRowRead, postings: readonly DocumentTerm[], mentions: readonly Mention[], roles: readonly ActorRole[]): void {
    this.retire(row.id);
    const doc = this.ids.length;
    if (doc >= this.alive.length) {
      const next = new Uint8Array(this.alive.length * 2);
      next.set(this.alive);
      this.alive = next;
    }
    this.ids.push(row.id);
    this.ordOf.set(row.id, doc);
    this.prOfDoc.push(this.lowestPr(row.id));
    this.alive[doc] = 1;
    this.length.push(row.lexical_length);
    this.type.push(this.interned.string(row.type));
    this.source.push(this.interned.string(row.source));
    this.occurredAt.push(new Date(row.occurred_at).getTime());
    this.actorNames.push(this.interned.list(row.actor_names));
    this.documents++;
    this.totalLength += row.lexical_length;
    const terms = this.termsOf.append(doc, postings.length);
    postings.forEach((p, i) => {
      let t = this.termIndex.get(p.term);
      if (t === undefined) {
        t = this.lists.length;
        this.lists.push(new GrowingPostingList(p.term));
        this.termIndex.set(p.term, t);
      }
      const list = this.lists[t]!;
      list.append(doc, p.fields, p.positions);
      this.termsOf.values[terms + i] = t;
    });
    const at = this.entitiesOf.append(doc, mentions.length);
    mentions.forEach((m, i) => {
      const id = m.entityId;
      let e = this.entityIndex.get(id);
      if (e === undefined) {
        e = this.entities.length;
        // Created holding its first mention: most entities have one item, and an empty array's first push
        // reserves room for 17.
        this.entities.push({ id, key: m.key, category: this.interned.string(m.category), docs: [doc], confidence: m.confidence, live: 1, dead: 0 });
        this.entityIndex.set(id, e);
        const sameKey = this.entitiesByKey.get(m.key);
        this.entitiesByKey.set(m.key, sameKey === undefined ? e : typeof sameKey === 'number' ? [sameKey, e] : [...sameKey, e]);
      } else {
        const entry = this.entities[e]!;
        entry.docs.push(doc);
        const held = entry.confidence;
        if (typeof held !== 'number') held.push(m.confidence);
        else if (held !== m.confidence) entry.confidence = [...Array<number>(entry.docs.length - 1).fill(held), m.confidence];
        entry.live++;
        if (entry.docs.length <= TRIM_UP_TO) this.grownEntities.add(entry);
      }
      this.entitiesOf.values[at + i] = e;
    });
    const played = this.rolesOf.append(doc, roles.length);
    roles.forEach((r, i) => {
      let a = this.actorIndex.get(r.actorId);
      if (a === undefined) {
        a = this.actors.length;
        this.actors.push({ id: r.actorId, rows: [], sorted: true, dead: 0 });
        this.actorIndex.set(r.actorId, a);
      }
      const role = this.roleOf(r.role);
      const entry = this.actors[a]!;
      const packed = doc * ROLE_SLOTS + role;
      // A row that sorts after the list's last keeps it sorted; any other leaves the sort to the next read.
      if (entry.sorted && entry.rows.length > 0 && this.newestFirst(entry.rows[entry.rows.length - 1]!, packed) > 0) entry.sorted = false;
      entry.rows.push(packed);
      this.rolesOf.values[played + i] = a * ROLE_SLOTS + role;
    });
  }

  /** The confidence of entity `e`'s mention in `doc`, a live document that mentions it. */
  mentionConfidence(e: number, doc: number): number {
    const { docs, confidence } = this.entities[e]!;
    if (typeof confidence === 'number') return confidence;
    // An entity's documents are in document order (appended as documents are, and kept in order when compacted).
    let low = 0;
    let high = docs.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (docs[mid]! < doc) low = mid + 1;
      else high = mid;
    }
    if (docs[low] !== doc) throw new Error(`entity ${this.entities[e]!.id} has no mention in document ${doc}`);
    return confidence[low]!;
  }

  /** The entities with this key (indexes into `entities`). */
  entitiesWithKey(key: string): readonly number[] {
    const found = this.entitiesByKey.get(key);
    return found === undefined ? [] : typeof found === 'number' ? [found] : found;
  }

  private roleOf(name: string): number {
    let role = this.roleIndex.get(name);
    if (role === undefined) {
      if (this.roles.length >= ROLE_SLOTS) throw new Error(`a workspace's items name more than ${ROLE_SLOTS} actor roles`);
      role = this.roles.length;
      this.roles.push(this.interned.string(name));
      this.roleIndex.set(name, role);
    }
    return role;
  }

  /** Row order of `actors[].rows` (packed rows of one person): newest item first, then by item id, then role. */
  readonly newestFirst = (x: number, y: number): number => {
    const dx = ordinalOf(x);
    const dy = ordinalOf(y);
    if (dx !== dy) {
      const byDate = this.occurredAt[dy]! - this.occurredAt[dx]!;
      if (byDate !== 0) return byDate;
      const ix = this.ids[dx]!;
      const iy = this.ids[dy]!;
      if (ix !== iy) return ix < iy ? -1 : 1;
    }
    const rx = this.roles[roleAt(x)]!;
    const ry = this.roles[roleAt(y)]!;
    return rx < ry ? -1 : rx > ry ? 1 : dx - dy;
  };

  /** A person's rows, newest first (sorted now if rows arrived out of order since the last read). */
  rowsOf(entry: ActorEntry): readonly number[] {
    if (!entry.sorted) {
      entry.rows.sort(this.newestFirst);
      entry.sorted = true;
    }
    return entry.rows;
  }

  /** Drops dead postings and mentions from the lists that lost documents, where they are most of the list. */
  compactRetired(): void {
    for (const list of this.retiredLists) if (list.wasteful) list.compact(this.isLive);
    for (const entry of this.retiredEntities) this.compactEntity(entry);
    for (const entry of this.retiredActors) {
      if (!mostlyDead(entry.dead, entry.rows.length)) continue;
      entry.rows = entry.rows.filter((r) => this.isLive(ordinalOf(r)));
      entry.dead = 0;
    }
    this.retiredLists.clear();
    this.retiredEntities.clear();
    this.retiredActors.clear();
  }

  unlinkChanges(itemId: string): void {
    for (const pr of this.prsOf.get(itemId)) this.commitsOf.remove(pr, itemId);
    for (const commit of this.commitsOf.get(itemId)) {
      this.prsOf.remove(commit, itemId);
      this.syncPr(commit);
    }
    this.prsOf.clear(itemId);
    this.commitsOf.clear(itemId);
    this.syncPr(itemId);
  }

  linkChange(prId: string, commitId: string): void {
    // The index's own strings for ids it holds: an edge's row brings copies of both (~100k at 100k items).
    const pr = this.heldId(prId);
    const commit = this.heldId(commitId);
    this.prsOf.add(commit, pr);
    this.commitsOf.add(pr, commit);
    this.syncPr(commit);
  }

  private heldId(itemId: string): string {
    const doc = this.ordOf.get(itemId);
    return doc === undefined ? itemId : this.ids[doc]!;
  }

  private lowestPr(commitId: string): string | undefined {
    return smallest(this.prsOf.get(commitId));
  }

  private syncPr(commitId: string): void {
    const doc = this.ordOf.get(commitId);
    if (doc !== undefined) this.prOfDoc[doc] = this.lowestPr(commitId);
  }

  /**
   * Gives the small entities that gained mentions since the last call arrays of their exact length. A push
   * onto a full array reserves half as much again plus 16 slots, so an entity of a few items held room for
   * 19 in each of its two arrays: at 100k items 117k entities' arrays were 75 MB of the event loop's heap,
   * about half of it empty. Called after each page of items, so an entity mentioned by many items of the
   * page is copied once, not at each mention. An entity past `TRIM_UP_TO` items keeps the room its pushes
   * reserved (at most half its length): copied at every page it gained a mention in, and grown again by the
   * next page's first push, the arrays of the entities most items share (a repository, a common path) were a
   * quarter of what an import allocated on the event loop at 100k items.
   */
  trimGrown(): void {
    for (const entry of this.grownEntities) {
      entry.docs = entry.docs.slice();
      if (typeof entry.confidence !== 'number') entry.confidence = entry.confidence.slice();
    }
    this.grownEntities.clear();
  }

  compactEntity(entry: EntityEntry): void {
    if (!mostlyDead(entry.dead, entry.docs.length)) return;
    const held = entry.confidence;
    const docs: number[] = [];
    const confidence: number[] = [];
    entry.docs.forEach((d, i) => {
      if (this.isLive(d)) {
        docs.push(d);
        if (typeof held !== 'number') confidence.push(held[i]!);
      }
    });
    entry.docs = docs;
    if (typeof held !== 'number') entry.confidence = confidence;
    entry.dead = 0;
  }
}

/**
 * Per-document runs of integers, end to end in one array on a resizable buffer (and another of where each
 * run starts), instead of typed arrays of each document's own (300k small allocations at 100k items, ~60 MB of
 * object headers). Documents are append-only ordinals; a retired document's run stays
 * (its document is never read again) and is not counted.
 */
export class DocSpans {
  private starts: Int32Array;
  private used = 0;
  values: Int32Array;

  /** `reserve`: bytes of address space each array reserves at first (a full one moves to 8x as much). */
  constructor(private readonly reserve = SPAN_RESERVE) {
    this.starts = growable(Int32Array, 1024, reserve);
    this.values = growable(Int32Array, 4096, reserve);
  }

  /** Room for `count` values of document `doc` (the next ordinal); returns where they start in `values`. */
  append(doc: number, count: number): number {
    const at = this.used;
    this.used += count;
    this.values = ensure(this.values, this.used);
    // starts[d] is where document d's run begins, starts[d + 1] where it ends.
    this.starts = ensure(this.starts, doc + 2);
    this.starts[doc] = at;
    this.starts[doc + 1] = this.used;
    return at;
  }

  start(doc: number): number {
    return this.starts[doc]!;
  }

  end(doc: number): number {
    return this.starts[doc + 1]!;
  }
}

/**
 * Address space a span array reserves at first (64 MB: 16M terms or mentions, some 150k items); pages are
 * committed only as it fills. Reservations stay small so that many workspaces fit in a process's address space.
 */
const SPAN_RESERVE = 2 ** 26;

type GrowableArray = Int32Array;
type GrowableKind<T extends GrowableArray> = { new (buffer: ArrayBuffer): T; BYTES_PER_ELEMENT: number };

/** A length-tracking typed array of `length` elements on a resizable buffer reserving `reserve` bytes. */
function growable<T extends GrowableArray>(Kind: GrowableKind<T>, length: number, reserve: number): T {
  const bytes = length * Kind.BYTES_PER_ELEMENT;
  return new Kind(new ArrayBuffer(bytes, { maxByteLength: Math.max(reserve, bytes) }));
}

/**
 * `array` able to hold at least `length` elements: grown in place (by doubling) within its reservation, else
 * copied into a new array reserving 8x as much.
 */
function ensure<T extends GrowableArray>(array: T, length: number): T {
  if (array.length >= length) return array;
  const buffer = array.buffer as ArrayBuffer;
  const bytes = Math.max(length, array.length * 2) * array.BYTES_PER_ELEMENT;
  if (bytes <= buffer.maxByteLength) {
    buffer.resize(bytes);
    return array;
  }
  const Kind = array.constructor as GrowableKind<T>;
  const next = growable(Kind, Math.max(length, array.length * 2), 8 * buffer.maxByteLength);
  next.set(array);
  return next;
}

interface ItemRowRead {
  id: string;
  workspace_id: string;
  type: string;
  source: string;
  occurred_at: Date | string;
  actor_names: string[];
  lexical_length: number;
  change_seq: string | number;
  /** The item's `search_vector` in text form (null when it has none). */
  terms: string | null;
}
/** An item's entity mentions as one row: entity ids and confidences, in the same order (PostgreSQL array text). */
interface MentionsRowRead {
  item_id: string;
  entity_ids: string;
  confidences: string;
}
/** One of an item's people (`SearchReadModel.actorRoles`). */
type ActorRole = Omit<ActorItemRow, 'id'>;
interface Mention {
  entityId: string;
  key: string;
  category: string;
  confidence: number;
}

/**
 * The search's reads from an index held in memory. Loaded in pages at start (reads wait for the load;
 * should it fail, every read goes to `fallback`, the SQL read model), then kept in step through the
 * items' change feed (`change_seq` and `change_xid` stamped by a trigger on every write, tombstones for
 * deletes): a catch-up applies what was committed since the last one, before a read whenever the feed
 * has moved, and in the background. On the embedded default this process is the database's only writer,
 * so its own write counter says when the feed moved; on a Postgres server (an api process beside
 * separate workers) a one-statement probe does, and catch-ups read the feed in one snapshot
 * (`changeFeed.ts`). Postings are columnar typed arrays per term, so a query's postings are read
 * without copying.
 */
export function createMemoryReadModel(
  db: Db,
  fallback: SearchReadModel,
  options: { onLoaded?: (info: { items: number; ms: number }) => void; onError?: (err: unknown) => void; maxStalenessMs?: number; followMs?: number } = {},
): SearchReadModel & { loaded(): Promise<boolean> } {
  const followMs = options.followMs ?? DEFAULT_FOLLOW_MS;
  const workspaces = new Map<string, WorkspaceIndex>();
  const server = db.kind === 'postgres';
  let position: FeedPosition = FEED_START;
  /** This process's writes to the feed's tables when the last catch-up began (the embedded default). */
  let seenWrites = -1;
  /** The feed's sequence as the last catch-up read it (a Postgres server), and the probe that compares. */
  let seenHead = '';
  const probe = feedProbe(db, 'item_change_seq');
  let ready = false;
  let closed = false;

  const workspace = (id: string): WorkspaceIndex => {
    let ws = workspaces.get(id);
    if (!ws) {
      ws = new WorkspaceIndex();
      workspaces.set(id, ws);
    }
    return ws;
  };

  /**
   * Reads the mentions and change links of a page of items (their terms come with the rows, as each
   * item's `search_vector` in text form) and applies them. Mentions come as one row per item without
   * their entities' names, which are looked up here and read only for entities this model has not seen
   * (joining every mention to `entities` made PGlite hash the workspace's whole entity table per page).
   */
  async function applyPage(q: Queryable, rows: readonly ItemRowRead[]): Promise<void> {
    if (rows.length === 0) return;
    const ids = rows.map((r) => r.id);
    const reads = [
      () =>
        q.query<MentionsRowRead>(
          'SELECT item_id, array_agg(entity_id)::text AS entity_ids, array_agg(confidence)::text AS confidences FROM entity_mentions WHERE item_id = ANY($1::text[]) GROUP BY item_id',
          [ids],
        ),
      () =>
        q.query<{ source_id: string; target_id: string }>(
          "SELECT source_id, target_id FROM edges WHERE type = 'commit_pr' AND (source_id = ANY($1::text[]) OR target_id = ANY($1::text[]))",
          [ids],
        ),
      () => actorRolesOf(q, ids),
    ] as const;
    // Together through the database handle; one after another on a transaction's single connection.
    const [mentionRows, links, rolesOf] =
      q === db ? await Promise.all([reads[0](), reads[1](), reads[2]()]) : [await reads[0](), await reads[1](), await reads[2]()];
    const mentionsOf = await namedMentions(q, rows, mentionRows.rows);
    for (const [i, row] of rows.entries()) {
      // About a millisecond an item (a hundred postings): the event loop answers between slices.
      if (i > 0 && i % APPLY_ITEMS_BETWEEN_YIELDS === 0) await new Promise((resolve) => setImmediate(resolve));
      const ws = workspace(row.workspace_id);
      ws.add(row, row.terms === null ? [] : parseTsvector(row.terms), mentionsOf.get(row.id) ?? [], rolesOf.get(row.id) ?? []);
      ws.unlinkChanges(row.id);
    }
    const workspaceOf = new Map(rows.map((r) => [r.id, r.workspace_id]));
    for (const l of links.rows) {
      const ws = workspaces.get(workspaceOf.get(l.source_id) ?? workspaceOf.get(l.target_id) ?? '');
      ws?.linkChange(l.source_id, l.target_id);
    }
    for (const ws of new Set(rows.map((r) => workspace(r.workspace_id)))) {
      ws.compactRetired();
      ws.trimGrown();
    }
  }

  /** Each item's mentions with their entities' keys and categories: from this model where it knows the entity, else read. */
  async function namedMentions(q: Queryable, rows: readonly ItemRowRead[], mentionRows: readonly MentionsRowRead[]): Promise<Map<string, Mention[]>> {
    const workspaceOf = new Map(rows.map((r) => [r.id, r.workspace_id]));
    const parsed = mentionRows.map((r) => ({ itemId: r.item_id, entityIds: pgNumberArray(r.entity_ids), confidences: pgNumberArray(r.confidences) }));
    const unknown = new Set<string>();
    for (const m of parsed) {
      const known = workspaces.get(workspaceOf.get(m.itemId) ?? '')?.entityIndex;
      for (const id of m.entityIds) if (!known?.has(id)) unknown.add(id);
    }
    const named = new Map<string, { key: string; category: string }>();
    if (unknown.size > 0) {
      const res = await q.query<{ id: string | number; key: string; category: string }>('SELECT id, key, category FROM entities WHERE id = ANY($1::bigint[])', [[...unknown]]);
      for (const r of res.rows) named.set(String(r.id), { key: r.key, category: r.category });
    }
    const out = new Map<string, Mention[]>();
    for (const { itemId, entityIds, confidences } of parsed) {
      const ws = workspaces.get(workspaceOf.get(itemId) ?? '');
      const mentions: Mention[] = [];
      entityIds.forEach((entityId, i) => {
        const at = ws?.entityIndex.get(entityId);
        const entity = at === undefined ? named.get(entityId) : ws!.entities[at]!;
        // An entity deleted since its mention was read (it had no other items) is left out, as a join would.
        if (entity) mentions.push({ entityId, key: entity.key, category: entity.category, confidence: Number(confidences[i]) });
      });
      out.set(itemId, mentions);
    }
    return out;
  }

  const ITEM_COLUMNS = 'id, workspace_id, type, source, occurred_at, actor_names, lexical_length, change_seq, search_vector::text AS terms';

  async function load(): Promise<void> {
    const started = performance.now();
    // Everything committed after this is caught up by the first refresh (re-applying an item is idempotent).
    const start = await feedStart(db, CHANGE_FEED.map((t) => `SELECT max(change_seq) FROM ${t}`));
    let after = '';
    let items = 0;
    for (;;) {
      const page = await db.query<ItemRowRead>(`SELECT ${ITEM_COLUMNS} FROM items WHERE id > $1 ORDER BY id LIMIT ${PAGE}`, [after]);
      if (page.rows.length === 0) break;
      await applyPage(db, page.rows);
      items += page.rows.length;
      after = page.rows[page.rows.length - 1]!.id;
      await new Promise((resolve) => setImmediate(resolve));
      if (closed) return;
    }
    // People's rows arrive in id order: sorted newest first here, a person at a time, not by the first searches.
    for (const ws of workspaces.values()) {
      for (const [i, actor] of ws.actors.entries()) {
        ws.rowsOf(actor);
        if (i % 256 === 255) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    position = start;
    ready = true;
    options.onLoaded?.({ items, ms: Math.round(performance.now() - started) });
  }

  type Tombstone = { change_seq: string; workspace_id: string; item_id: string };
  /**
   * Retires the deleted items among `gone`, except one re-inserted after its tombstone (`reinserted`: an
   * item's number as read now), and returns the highest number among them.
   */
  function applyTombstones(gone: readonly Tombstone[], reinserted: ReadonlyMap<string, number>, upTo = Infinity): number {
    let highest = 0;
    const emptied = new Set<WorkspaceIndex>();
    for (const t of gone) {
      const seq = Number(t.change_seq);
      if (seq > upTo) break;
      const ws = workspaces.get(t.workspace_id);
      if (ws && !((reinserted.get(t.item_id) ?? -1) > seq)) {
        ws.retire(t.item_id);
        ws.unlinkChanges(t.item_id);
        emptied.add(ws);
      }
      highest = Math.max(highest, seq);
    }
    for (const ws of emptied) ws.compactRetired();
    return highest;
  }

  /** The embedded default: this process's committed writes, in pages by number. */
  async function catchUpOwnWrites(): Promise<void> {
    for (;;) {
      const writes = db.writeCount(CHANGE_FEED);
      const after = position.after;
      const [changed, gone] = await Promise.all([
        db.query<ItemRowRead>(`SELECT ${ITEM_COLUMNS} FROM items WHERE change_seq > $1 ORDER BY change_seq LIMIT ${CATCH_UP_PAGE}`, [after]),
        db.query<Tombstone>('SELECT change_seq, workspace_id, item_id FROM item_tombstones WHERE change_seq > $1 ORDER BY change_seq', [after]),
      ]);
      // A tombstone older than a re-insert of the same item must not remove the new version: apply in sequence order.
      const upTo = changed.rows.length === CATCH_UP_PAGE ? Number(changed.rows[changed.rows.length - 1]!.change_seq) : Infinity;
      const removed = applyTombstones(gone.rows, new Map(changed.rows.map((r) => [r.id, Number(r.change_seq)])), upTo);
      await applyPage(db, changed.rows);
      position = { ...FEED_START, after: Math.max(after, removed, ...changed.rows.map((r) => Number(r.change_seq))) };
      if (changed.rows.length < CATCH_UP_PAGE) {
        seenWrites = writes;
        return;
      }
    }
  }

  /**
   * A Postgres server: what every writer committed since the position (the changed items' numbers and
   * the tombstones in one statement, then the changed rows by id, a page at a time: a row read newer than
   * its number is applied as it is now, and read again by the next catch-up, which is harmless).
   */
  async function catchUpServer(): Promise<void> {
    for (let more = true; more; ) {
      const changes = await changesSince(
        db,
        position,
        {
          changed: { from: 'items', columns: 'id, change_seq' },
          gone: { from: 'item_tombstones', columns: 'change_seq, workspace_id, item_id' },
        },
        { sequence: 'item_change_seq' },
      );
      const current = new Map(changes.rows.changed.map((r) => [String(r.id), Number(r.change_seq)]));
      const gone = (changes.rows.gone as unknown as Tombstone[]).sort((a, b) => Number(a.change_seq) - Number(b.change_seq));
      applyTombstones(gone, current);
      const ids = [...current.keys()];
      for (let i = 0; i < ids.length; i += CATCH_UP_PAGE) {
        const page = await db.query<ItemRowRead>(`SELECT ${ITEM_COLUMNS} FROM items WHERE id = ANY($1::text[])`, [ids.slice(i, i + CATCH_UP_PAGE)]);
        await applyPage(db, page.rows);
      }
      position = changes.next;
      seenHead = changes.head;
      more = changes.more && !closed;
    }
  }

  const loading = load().catch((err: unknown) => {
    options.onError?.(err);
  });

  const follower = createFollower({
    active: () => ready && !closed,
    stale: server ? () => probe(position, seenHead) : () => db.writeCount(CHANGE_FEED) !== seenWrites,
    // Committed rows only: a row seen inside an import's open transaction could still roll back.
    catchUp: server ? catchUpServer : () => readCommitted(catchUpOwnWrites),
    followMs,
    maxStalenessMs: options.maxStalenessMs,
    // On the embedded database a catch-up waits for an open transaction's commit (it reads committed rows only).
    writerBusy: server ? undefined : () => db.transactionOpen(),
    onError: options.onError,
  });

  /**
   * The model to read from now: this one once loaded, else SQL. A read waits for the catch-up with what
   * was committed before it, unless that means waiting for other writes: while an import writes faster
   * than catch-ups apply (one has been running for over `maxStalenessMs`), or while a transaction is open
   * on the embedded database (a catch-up reads committed rows only, so it waits for that commit: an
   * import's batch of 128 items holds one open for 0.3-0.9 s under load, and every search that arrived as
   * a catch-up began waited for all of it, up to 2.4 s at 100k items). Then it waits at most about
   * `maxStalenessMs` and answers from the index as of the last page applied, as a search engine's refresh
   * interval would. With no transaction open and no catch-up behind, a read after a write always sees it.
   */
  const use = async (): Promise<boolean> => {
    if (!ready) {
      // Wait for the load rather than read SQL meanwhile: at 100k items a SQL lexical read took ~2 s of the
      // database thread, and 16 clients' reads kept the load's own pages waiting behind them for minutes.
      await loading;
      if (!ready) return false;
    }
    await follower.fresh();
    return true;
  };

  return {
    kind: 'memory',
    loaded: async () => {
      await loading;
      return ready;
    },
    refresh: () => follower.refresh(),

    async stats(workspaceId): Promise<CollectionStats> {
      if (!(await use())) return fallback.stats(workspaceId);
      const ws = workspaces.get(workspaceId);
      if (!ws || ws.documents === 0) return { documents: 0, avgLength: 1 };
      return { documents: ws.documents, avgLength: ws.totalLength / ws.documents || 1 };
    },

    async postings(filter, terms): Promise<PostingsRead> {
      if (!(await use())) return fallback.postings(filter, terms);
      const ws = workspaces.get(filter.workspaceId);
      const stats = ws && ws.documents > 0 ? { documents: ws.documents, avgLength: ws.totalLength / ws.documents || 1 } : { documents: 0, avgLength: 1 };
      if (!ws) return { ...stats, lists: [], admits: () => false, itemId: () => '', docLength: () => 0 };
      const lists = [...new Set(terms)].flatMap((t) => {
        const i = ws.termIndex.get(t);
        const list = i === undefined ? undefined : ws.lists[i];
        return list && list.live > 0 ? [list] : [];
      });
      const stable = { space: ws.space, ids: ws.ids, lengths: ws.length, ...(narrowsItems(filter) ? {} : { live: ws.alive }) };
      return { ...stats, lists, admits: admitting(ws, filter), itemId: (doc) => ws.ids[doc]!, docLength: (doc) => ws.length[doc]!, stable };
    },

    async entityMatches(filter, keys): Promise<EntityMatchesRead> {
      if (!(await use())) return fallback.entityMatches(filter, keys);
      const ws = workspaces.get(filter.workspaceId);
      if (!ws) return { entities: [], admits: () => false, itemId: () => '' };
      const entities: EntityMatch[] = [];
      for (const key of new Set(keys)) {
        for (const e of ws.entitiesWithKey(key)) {
          const entry = ws.entities[e]!;
          // The entry's arrays as they are: a later write replaces them (`compactEntity`, `trimGrown`) or appends past `count`.
          if (entry.live > 0) entities.push({ id: entry.id, key: entry.key, category: entry.category, itemCount: entry.live, count: entry.docs.length, docs: entry.docs, confidence: entry.confidence });
        }
      }
      return { entities, admits: admitting(ws, filter), itemId: (doc) => ws.ids[doc]! };
    },

    async poolRows(filter, ids): Promise<Map<string, PoolRow>> {
      if (!(await use())) return fallback.poolRows(filter, ids);
      const ws = workspaces.get(filter.workspaceId);
      const out = new Map<string, PoolRow>();
      if (!ws) return out;
      const predicate = itemPredicate(filter);
      for (const id of ids) {
        const doc = ws.ordOf.get(id);
        if (doc === undefined) continue;
        const type = ws.type[doc]!;
        const occurredAt = ws.occurredAt[doc]!;
        if (predicate && !predicate({ id, source: ws.source[doc]!, type, occurredAt, actorNames: ws.actorNames[doc]! })) continue;
        out.set(id, { id, type, occurredAt });
      }
      return out;
    },

    async itemEntities(workspaceId, ids, perItem = ENTITIES_PER_ITEM): Promise<Map<string, { key: string; category: string }[]>> {
      if (!(await use())) return fallback.itemEntities(workspaceId, ids, perItem);
      const ws = workspaces.get(workspaceId);
      const out = new Map<string, { key: string; category: string }[]>();
      if (!ws) return out;
      for (const id of ids) {
        const doc = ws.ordOf.get(id);
        if (doc === undefined) continue;
        const spans = ws.entitiesOf;
        const ranked: { entry: EntityEntry; confidence: number }[] = [];
        for (let i = spans.start(doc), end = spans.end(doc); i < end; i++) {
          const e = spans.values[i]!;
          ranked.push({ entry: ws.entities[e]!, confidence: ws.mentionConfidence(e, doc) });
        }
        // As the SQL read orders them: most confident first, then the rarer entity (fewer items), then by key.
        ranked.sort((a, b) => b.confidence - a.confidence || a.entry.live - b.entry.live || (a.entry.key < b.entry.key ? -1 : a.entry.key > b.entry.key ? 1 : 0));
        if (ranked.length > 0) out.set(id, ranked.slice(0, perItem).map(({ entry }) => ({ key: entry.key, category: entry.category })));
      }
      return out;
    },

    async changeRows(workspaceId, ids, docs): Promise<(CandidateRow | undefined)[]> {
      if (!(await use())) return fallback.changeRows(workspaceId, ids);
      const ws = workspaces.get(workspaceId);
      const out: (CandidateRow | undefined)[] = [];
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        // The hint when it still names this item's live document (a map lookup less), else by id.
        const hint = docs?.[i] ?? -1;
        const doc = ws && hint >= 0 && ws.ids[hint] === id && ws.alive[hint] === 1 ? hint : ws?.ordOf.get(id);
        if (doc === undefined) {
          out.push(undefined);
          continue;
        }
        const type = ws!.type[doc]!;
        // Most pooled commits have no pull request (lone commits): one object shape either way.
        out.push({ id, type, occurredAt: ws!.occurredAt[doc]!, pr: type === 'commit' ? ws!.prOfDoc[doc] : undefined });
      }
      return out;
    },

    async itemMentions(workspaceId, itemIds, categories): Promise<Map<string, MentionRow[]>> {
      if (!(await use())) return fallback.itemMentions(workspaceId, itemIds, categories);
      const ws = workspaces.get(workspaceId);
      const wanted = new Set(categories);
      const out = new Map<string, MentionRow[]>();
      // Items this model has not applied yet (indexed since its last catch-up) are read from SQL.
      const unseen: string[] = [];
      for (const id of itemIds) {
        const doc = ws?.ordOf.get(id);
        if (!ws || doc === undefined) {
          unseen.push(id);
          continue;
        }
        const spans = ws.entitiesOf;
        const rows: MentionRow[] = [];
        for (let i = spans.start(doc), end = spans.end(doc); i < end; i++) {
          const e = spans.values[i]!;
          const entry = ws.entities[e]!;
          if (wanted.has(entry.category)) rows.push({ category: entry.category, key: entry.key, confidence: ws.mentionConfidence(e, doc), df: entry.live });
        }
        if (rows.length === 0) continue;
        // (category, key) in binary order: the embedded database's collation is C.
        rows.sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        out.set(id, rows);
      }
      if (unseen.length > 0) for (const [id, rows] of await fallback.itemMentions(workspaceId, unseen, categories)) out.set(id, rows);
      return out;
    },

    async itemsOfActors(filter, actorIds, limit): Promise<ActorItemRow[]> {
      if (!(await use())) return fallback.itemsOfActors(filter, actorIds, limit);
      const ws = workspaces.get(filter.workspaceId);
      const n = Math.floor(limit);
      if (!ws || !(n >= 1)) return [];
      const admits = admitting(ws, filter);
      // Each person's first `n` admitted rows (their rows are newest first), then the newest `n` of those together.
      const lists: { actor: ActorEntry; rows: number[] }[] = [];
      for (const id of new Set(actorIds)) {
        const a = ws.actorIndex.get(id);
        if (a === undefined) continue;
        const actor = ws.actors[a]!;
        const all = ws.rowsOf(actor);
        const rows: number[] = [];
        for (let i = 0; i < all.length && rows.length < n; i++) if (admits(ordinalOf(all[i]!))) rows.push(all[i]!);
        if (rows.length > 0) lists.push({ actor, rows });
      }
      const heads = lists.map(() => 0);
      const out: ActorItemRow[] = [];
      while (out.length < n) {
        let best = -1;
        for (let i = 0; i < lists.length; i++) {
          if (heads[i]! >= lists[i]!.rows.length) continue;
          if (best < 0) best = i;
          else {
            const order = ws.newestFirst(lists[i]!.rows[heads[i]!]!, lists[best]!.rows[heads[best]!]!);
            // The same item and role for two people: by actor id.
            if (order < 0 || (order === 0 && lists[i]!.actor.id < lists[best]!.actor.id)) best = i;
          }
        }
        if (best < 0) break;
        const row = lists[best]!.rows[heads[best]!++]!;
        out.push({ id: ws.ids[ordinalOf(row)]!, actorId: lists[best]!.actor.id, role: ws.roles[roleAt(row)]! });
      }
      return out;
    },

    async rolesOfActors(workspaceId, actorIds): Promise<ActorItemRole[]> {
      if (!(await use())) return fallback.rolesOfActors(workspaceId, actorIds);
      const ws = workspaces.get(workspaceId);
      const out: ActorItemRole[] = [];
      if (!ws) return out;
      for (const id of new Set(actorIds)) {
        const a = ws.actorIndex.get(id);
        if (a === undefined) continue;
        for (const row of ws.rowsOf(ws.actors[a]!)) {
          const doc = ordinalOf(row);
          if (ws.isLive(doc)) out.push({ actorId: id, itemId: ws.ids[doc]!, role: ws.roles[roleAt(row)]! });
        }
      }
      return out;
    },

    async actorItemCounts(workspaceId, actorIds): Promise<Map<string, number>> {
      if (!(await use())) return fallback.actorItemCounts(workspaceId, actorIds);
      const ws = workspaces.get(workspaceId);
      const out = new Map<string, number>();
      if (!ws) return out;
      for (const id of new Set(actorIds)) {
        const a = ws.actorIndex.get(id);
        if (a === undefined) continue;
        // An item once per actor, whatever roles it holds there.
        const items = new Set<number>();
        for (const row of ws.rowsOf(ws.actors[a]!)) {
          const doc = ordinalOf(row);
          if (ws.isLive(doc)) items.add(doc);
        }
        if (items.size > 0) out.set(id, items.size);
      }
      return out;
    },

    async actorRoles(workspaceId, itemIds): Promise<Map<string, ActorRole[]>> {
      if (!(await use())) return fallback.actorRoles(workspaceId, itemIds);
      const ws = workspaces.get(workspaceId);
      const out = new Map<string, ActorRole[]>();
      if (!ws) return out;
      const spans = ws.rolesOf;
      for (const id of itemIds) {
        const doc = ws.ordOf.get(id);
        if (doc === undefined || spans.start(doc) === spans.end(doc)) continue;
        const roles: ActorRole[] = [];
        for (let i = spans.start(doc), end = spans.end(doc); i < end; i++) {
          const packed = spans.values[i]!;
          roles.push({ actorId: ws.actors[ordinalOf(packed)]!.id, role: ws.roles[roleAt(packed)]! });
        }
        out.set(id, roles);
      }
      return out;
    },

    async close() {
      closed = true;
      await loading;
      await follower.close();
      workspaces.clear();
    },
  };
}

/** The smallest of the ids (undefined when there are none). */
function smallest(ids: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const id of ids) if (best === undefined || id < best) best = id;
  return best;
}

/**
 * A set of ids for each id (a commit's pull requests, a pull request's commits), held as the id itself
 * when there is one, as most have, else as an array of distinct ids: at 100k items a `Set` each was 98k
 * sets, ~15 MB of the event loop's heap.
 */
class LinkSets {
  private readonly of = new Map<string, string | string[]>();

  get(key: string): readonly string[] {
    const held = this.of.get(key);
    return held === undefined ? [] : typeof held === 'string' ? [held] : held;
  }

  add(key: string, id: string): void {
    const held = this.of.get(key);
    if (held === undefined) this.of.set(key, id);
    else if (typeof held === 'string') {
      if (held !== id) this.of.set(key, [held, id]);
    } else if (!held.includes(id)) held.push(id);
  }

  remove(key: string, id: string): void {
    const held = this.of.get(key);
    if (held === undefined) return;
    if (typeof held === 'string') {
      if (held === id) this.of.delete(key);
      return;
    }
    const rest = held.filter((h) => h !== id);
    if (rest.length === held.length) return;
    this.of.set(key, rest.length === 1 ? rest[0]! : rest);
  }

  clear(key: string): void {
    this.of.delete(key);
  }
}

/** Whether a document of `ws` counts for a read under `filter`: the current version of its item, and passing the filter. */
function admitting(ws: WorkspaceIndex, filter: Parameters<typeof itemPredicate>[0]): (doc: number) => boolean {
  const predicate = itemPredicate(filter);
  return predicate
    ? (doc: number) =>
        ws.alive[doc] === 1 && predicate({ id: ws.ids[doc]!, source: ws.source[doc]!, type: ws.type[doc]!, occurredAt: ws.occurredAt[doc]!, actorNames: ws.actorNames[doc]! })
    : ws.isLive;
}
