import { SourceEvent } from '@engram/contracts';
import { PermanentJobError } from '@engram/queue';
import {
  eventContentHash,
  getItemStates,
  getStagedEvents,
  listEmbeddableItems,
  markEvents,
  setEmbeddingHashes,
  type Db,
  type ItemRow,
  type ItemState,
  type SearchReadModel,
  type StagedEvent,
  type VectorRecord,
  type VectorStore,
} from '@engram/stores';
import { assignClusters } from './clusters/index.js';
import { itemIdOf, itemRowOf } from './document.js';
import { embeddingChunks, embeddingHash, vectorRecords } from './embedding.js';
import type { EmbeddingProvider } from './embeddings/index.js';
import { deriveItem, writeItems, type ItemWrite } from './writeItem.js';

export interface IndexerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/**
 * Staged events indexed together (one embedding call, one transaction per workspace). 128 rather than 32:
 * PGlite's cost is mostly per statement, and the batch's multi-row statements amortise it (1,500 prettier
 * items, fake embedder: 133 items per CPU-second against 87 at 32; `bench/results/ingest.md`).
 */
export const DEFAULT_INDEX_BATCH_SIZE = 128;
/**
 * Batches in flight at once: one reads and embeds while another writes and a third places its items in
 * clusters (a phase that runs one batch of a workspace at a time, on this thread, and took about half of
 * a batch's wall time at 30k items). With two, neither thread was busy two thirds of the time. Callers
 * that want full batches keep `batchSize * INDEX_BATCHES_IN_FLIGHT` calls of `indexEvent` pending (the
 * job catalog's `index.event` concurrency).
 */
export const INDEX_BATCHES_IN_FLIGHT = 3;
/**
 * Items written per transaction: a whole default batch. Each transaction costs a fixed two dozen statements
 * whatever its size, and a search no longer waits for it (its reads run inside the open transaction, and
 * the read model's catch-up waits at most `SEARCH_MAX_STALENESS_MS`). 30k items, fake embedder, against
 * slices of 32: import 68-70 s against 76-83 s, the database thread's CPU 44-46 s against 52-56 s; 16
 * clients during a 2,000-item import into 100k items: client p95 223 ms either way, the import 12-15 s
 * against 19-25 (`bench/results/scale-2026-11-29-s26.md`).
 */
const WRITE_SLICE = 128;

export interface IndexerDeps {
  db: Db;
  /** Collection already opened with `ensureCollection` for `embedder`'s model. */
  vectors: VectorStore;
  embedder: EmbeddingProvider;
  logger?: IndexerLogger;
  /** Most events per batch; default DEFAULT_INDEX_BATCH_SIZE. 1 indexes every event on its own. */
  batchSize?: number;
  /** Batches running at once; default INDEX_BATCHES_IN_FLIGHT. */
  batchesInFlight?: number;
  /**
   * Where cluster assignment reads the workspace's item count (the IDF's N) when it reloads the
   * centroids: the search's read model (in memory on the embedded default, where `count(*)` over 100k
   * items held the database's one connection for 0.3 s); default SQL.
   */
  read?: Pick<SearchReadModel, 'stats'>;
}

export type IndexStatus = 'indexed' | 'unchanged' | 'stale' | 'missing';

export interface IndexOutcome {
  status: IndexStatus;
  itemId: string | null;
  /** Actors whose items changed (schedule `actors.expertise` for them); empty unless indexed. */
  actorIds: string[];
  /** Whether the item's vectors were (re)computed. */
  embedded: boolean;
}

/** What became of one event of a batch: an outcome, or the error its job should see. */
export type SettledIndex = { eventId: string; outcome: IndexOutcome } | { eventId: string; error: Error };

export interface Indexer {
  /**
   * The `index.event` job: one staged event becomes one indexed item. Idempotent under redelivery.
   * Calls made while a batch is running are gathered into the next batch (up to `batchSize`).
   * Rejects with a PermanentJobError for an event that is not a valid source event (marked failed).
   */
  indexEvent(eventId: string): Promise<IndexOutcome>;
  /** Indexes these staged events as one batch (several when more than `batchSize`), each settled on its own. */
  indexEvents(eventIds: readonly string[]): Promise<SettledIndex[]>;
  /** Re-embeds every item of a workspace (after a model change); returns how many. */
  reembedAll(workspaceId: string): Promise<number>;
}

/** Why an event changes nothing: a newer version is stored, or this exact version is fully indexed. */
function verdict(stored: ItemState | null, event: { updatedAt: string; contentHash: string; embeddingHash: string }): 'stale' | 'unchanged' | null {
  if (stored === null) return null;
  if (stored.sourceUpdatedAt > event.updatedAt) return 'stale';
  if (stored.contentHash === event.contentHash && stored.embeddingHash === event.embeddingHash) return 'unchanged';
  return null;
}

const REEMBED_PAGE = 64;

/** A valid staged event ready to write. */
interface Prepared {
  staged: StagedEvent;
  event: SourceEvent;
  item: ItemRow;
  chunks: string[];
  version: { updatedAt: string; contentHash: string; embeddingHash: string };
}

type Mark = Parameters<typeof markEvents>[1][number];

const skipped = (itemId: string | null, status: IndexStatus): IndexOutcome => ({ status, itemId, actorIds: [], embedded: false });

export function createIndexer({ db, vectors, embedder, logger, read, batchSize = DEFAULT_INDEX_BATCH_SIZE, batchesInFlight = INDEX_BATCHES_IN_FLIGHT }: IndexerDeps): Indexer {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(batchesInFlight) || batchesInFlight < 1) throw new Error(`batchesInFlight must be a positive integer, got ${batchesInFlight}`);

  /** Embeds every chunk of the batch in one call, shortest texts together, and hands each item its vectors. */
  async function embedAll(items: readonly Prepared[]): Promise<Map<string, number[][]>> {
    const texts = items.flatMap((p) => p.chunks.map((text) => ({ itemId: p.item.id, text })));
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.text.length - texts[b]!.text.length);
    const embedded = await embedder.embed(order.map((i) => texts[i]!.text));
    const vectorsOf = new Map<string, number[][]>(items.map((p) => [p.item.id, []]));
    const byText = new Array<number[]>(texts.length);
    order.forEach((textIndex, row) => (byText[textIndex] = embedded[row]!));
    texts.forEach((t, i) => vectorsOf.get(t.itemId)!.push(byText[i]!));
    return vectorsOf;
  }

  /**
   * One batch. Invalid events are marked failed and settle with a PermanentJobError; of several versions
   * of one item only the newest is written (the others are stale); the rest are compared with the stored
   * items, embedded in one call, and written in one transaction per workspace. The staged status is
   * written last, in one statement: a crash before it leaves the events pending, and their redelivery
   * finds the items written (unchanged) or not, never half.
   */
  async function processBatch(eventIds: readonly string[]): Promise<SettledIndex[]> {
    const started = performance.now();
    const ids = [...new Set(eventIds)];
    const staged = await getStagedEvents(db, ids);
    const settled = new Map<string, SettledIndex>();
    const marks: Mark[] = [];
    const settle = (s: StagedEvent, outcome: IndexOutcome, mark: 'indexed' | 'skipped') => {
      settled.set(s.id, { eventId: s.id, outcome });
      // A redelivery of an event already indexed keeps its status; anything else skipped is settled as skipped.
      if (mark === 'indexed' || s.status !== 'indexed') marks.push({ id: s.id, status: mark });
    };

    const newest = new Map<string, Prepared>();
    const superseded: Prepared[] = [];
    for (const id of ids) {
      const s = staged.get(id);
      if (!s) {
        settled.set(id, { eventId: id, outcome: skipped(null, 'missing') });
        continue;
      }
      let prepared: Prepared;
      try {
        const parsed = SourceEvent.safeParse(s.event);
        if (!parsed.success) throw new Error(parsed.error.message);
        const event = parsed.data;
        const item = itemRowOf({ workspaceId: s.workspaceId, connectionId: s.connectionId, event, contentHash: eventContentHash(event) });
        const chunks = embeddingChunks({ title: event.title, body: event.body });
        prepared = { staged: s, event, item, chunks, version: { updatedAt: item.sourceUpdatedAt, contentHash: item.contentHash, embeddingHash: embeddingHash(embedder.model, chunks) } };
      } catch (err) {
        const message = (err as Error).message;
        marks.push({ id, status: 'failed', error: message.slice(0, 2000) });
        settled.set(id, { eventId: id, error: new PermanentJobError(`staged event ${id} is not a valid source event: ${message.slice(0, 500)}`) });
        continue;
      }
      const other = newest.get(prepared.item.id);
      if (other && other.version.updatedAt > prepared.version.updatedAt) superseded.push(prepared);
      else {
        if (other) superseded.push(other);
        newest.set(prepared.item.id, prepared);
      }
    }
    for (const p of superseded) settle(p.staged, skipped(p.item.id, 'stale'), 'skipped');

    const stored = await getItemStates(db, [...newest.keys()]);
    const toWrite: Prepared[] = [];
    for (const p of newest.values()) {
      const early = verdict(stored.get(p.item.id) ?? null, p.version);
      if (early) settle(p.staged, skipped(p.item.id, early), 'skipped');
      else toWrite.push(p);
    }

    // The model call happens outside the transaction; equal embedding text reuses the stored vectors.
    const reembed = toWrite.filter((p) => stored.get(p.item.id)?.embeddingHash !== p.version.embeddingHash);
    const phases = { read: performance.now() - started, embed: 0, write: 0, vectors: 0, clusters: 0 };
    let at = performance.now();
    const lap = (phase: 'embed' | 'write' | 'vectors' | 'clusters'): void => {
      const now = performance.now();
      phases[phase] += now - at;
      at = now;
    };
    const vectorsOf = reembed.length > 0 ? await embedAll(reembed) : new Map<string, number[][]>();
    lap('embed');

    const byWorkspace = new Map<string, Prepared[]>();
    for (const p of toWrite) byWorkspace.set(p.item.workspaceId, [...(byWorkspace.get(p.item.workspaceId) ?? []), p]);
    let edges = 0;
    for (const [workspaceId, batch] of [...byWorkspace].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const writes: ItemWrite[] = batch.map((p) => ({ item: p.item, event: p.event, derived: deriveItem(p.event), verdict: (current) => verdict(current, p.version) }));
      // Each item is written whole in one transaction (a batch larger than WRITE_SLICE in several).
      const written: Awaited<ReturnType<typeof writeItems>> = [];
      for (let i = 0; i < writes.length; i += WRITE_SLICE) written.push(...(await db.transaction((tx) => writeItems(tx, workspaceId, writes.slice(i, i + WRITE_SLICE)))));
      lap('write');
      const records: VectorRecord[] = [];
      const replaced: string[] = [];
      const hashes: { itemId: string; hash: string }[] = [];
      const heads: { itemId: string; vector: number[] }[] = [];
      batch.forEach((p, i) => {
        const w = written[i]!;
        if (w.status !== 'written') return settle(p.staged, skipped(p.item.id, w.status), 'skipped');
        edges += w.edges;
        const own = vectorsOf.get(p.item.id);
        if (own) {
          if (stored.get(p.item.id)?.embeddingHash) replaced.push(p.item.id);
          records.push(...vectorRecords(p.item, own));
          hashes.push({ itemId: p.item.id, hash: p.version.embeddingHash });
          if (own[0]) heads.push({ itemId: p.item.id, vector: own[0] });
        }
        settle(p.staged, { status: 'indexed', itemId: p.item.id, actorIds: w.actorIds, embedded: own !== undefined }, 'indexed');
      });
      await vectors.deleteItems(workspaceId, replaced);
      await vectors.upsert(records);
      lap('vectors');
      await assignClusters(db, workspaceId, heads, { itemCounts: read });
      lap('clusters');
      // Recorded after the vectors: a crash before this line re-embeds on redelivery instead of leaving no vectors.
      await setEmbeddingHashes(db, hashes);
    }
    await markEvents(db, marks);
    const indexed = marks.filter((m) => m.status === 'indexed').length;
    logger?.info(
      {
        events: ids.length,
        indexed,
        failed: marks.filter((m) => m.status === 'failed').length,
        embedded: vectorsOf.size,
        edges,
        ms: Math.round(performance.now() - started),
        // Where the batch's time went (wall clock: waiting for the database thread counts).
        phaseMs: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, Math.round(v)])),
      },
      'events indexed',
    );
    return ids.map((id) => settled.get(id)!);
  }

  /** A batch whose processing throws is indexed again one event at a time, so one bad event fails alone. */
  async function runBatch(eventIds: readonly string[]): Promise<SettledIndex[]> {
    try {
      return await processBatch(eventIds);
    } catch (err) {
      if (eventIds.length <= 1) return eventIds.map((eventId) => ({ eventId, error: err as Error }));
      logger?.warn({ events: eventIds.length, err: (err as Error).message }, 'batch failed; indexing its events one by one');
      const out: SettledIndex[] = [];
      for (const id of new Set(eventIds)) out.push(...(await runBatch([id])));
      return out;
    }
  }

  async function indexEvents(eventIds: readonly string[]): Promise<SettledIndex[]> {
    const out: SettledIndex[] = [];
    for (let start = 0; start < eventIds.length; start += batchSize) out.push(...(await runBatch(eventIds.slice(start, start + batchSize))));
    return out;
  }

  // Calls of indexEvent gather here until a batch slot is free.
  const waiting: { eventId: string; resolve: (o: IndexOutcome) => void; reject: (e: Error) => void }[] = [];
  let inFlight = 0;
  let scheduled = false;
  function pump(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (inFlight < batchesInFlight && waiting.length > 0) {
        const batch = waiting.splice(0, batchSize);
        inFlight++;
        void runBatch(batch.map((w) => w.eventId))
          .then((results) => {
            const byId = new Map(results.map((r) => [r.eventId, r]));
            for (const w of batch) {
              const r = byId.get(w.eventId);
              if (!r) w.reject(new Error(`event ${w.eventId} was not settled by its batch`));
              else if ('error' in r) w.reject(r.error);
              else w.resolve(r.outcome);
            }
          })
          .catch((err: unknown) => batch.forEach((w) => w.reject(err as Error)))
          .finally(() => {
            inFlight--;
            if (waiting.length > 0) pump();
          });
      }
    });
  }

  function indexEvent(eventId: string): Promise<IndexOutcome> {
    return new Promise<IndexOutcome>((resolve, reject) => {
      waiting.push({ eventId, resolve, reject });
      pump();
    });
  }

  async function reembedAll(workspaceId: string): Promise<number> {
    let after: string | null = null;
    let count = 0;
    for (;;) {
      const page = await listEmbeddableItems(db, workspaceId, after, REEMBED_PAGE);
      if (page.length === 0) return count;
      const chunked = page.map((item) => ({ item, chunks: embeddingChunks({ title: item.title, body: item.content }) }));
      const embedded = await embedder.embed(chunked.flatMap((c) => c.chunks));
      await vectors.deleteItems(workspaceId, page.map((i) => i.id));
      let offset = 0;
      const records: VectorRecord[] = [];
      for (const { item, chunks } of chunked) {
        records.push(...vectorRecords(item, embedded.slice(offset, offset + chunks.length)));
        offset += chunks.length;
      }
      await vectors.upsert(records);
      await setEmbeddingHashes(db, chunked.map(({ item, chunks }) => ({ itemId: item.id, hash: embeddingHash(embedder.model, chunks) })));
      count += page.length;
      after = page[page.length - 1]?.id ?? null;
      logger?.info({ workspaceId, items: count }, 're-embedding');
    }
  }

  return { indexEvent, indexEvents, reembedAll };
}

export { itemIdOf };
