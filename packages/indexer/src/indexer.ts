import { SourceEvent } from '@engram/contracts';
import { PermanentJobError } from '@engram/queue';
import {
  eventContentHash,
  getItemState,
  getStagedEvent,
  listEmbeddableItems,
  markEvent,
  setEmbeddingHash,
  type Db,
  type ItemState,
  type VectorStore,
} from '@engram/stores';
import { assignCluster } from './clusters/index.js';
import { itemIdOf, itemRowOf } from './document.js';
import { embeddingChunks, embeddingHash, vectorRecords } from './embedding.js';
import type { EmbeddingProvider } from './embeddings/index.js';
import { writeItem } from './writeItem.js';

export interface IndexerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface IndexerDeps {
  db: Db;
  /** Collection already opened with `ensureCollection` for `embedder`'s model. */
  vectors: VectorStore;
  embedder: EmbeddingProvider;
  logger?: IndexerLogger;
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

export interface Indexer {
  /** The `index.event` job: one staged event becomes one indexed item. Idempotent under redelivery. */
  indexEvent(eventId: string): Promise<IndexOutcome>;
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

export function createIndexer({ db, vectors, embedder, logger }: IndexerDeps): Indexer {
  async function indexEvent(eventId: string): Promise<IndexOutcome> {
    const staged = await getStagedEvent(db, eventId);
    if (!staged) return { status: 'missing', itemId: null, actorIds: [], embedded: false };
    const parsed = SourceEvent.safeParse(staged.event);
    if (!parsed.success) {
      await markEvent(db, eventId, 'failed', parsed.error.message.slice(0, 2000));
      throw new PermanentJobError(`staged event ${eventId} is not a valid source event: ${parsed.error.message.slice(0, 500)}`);
    }
    const event = parsed.data;
    const { workspaceId } = staged;
    const item = itemRowOf({ workspaceId, connectionId: staged.connectionId, event, contentHash: eventContentHash(event) });
    const chunks = embeddingChunks({ title: event.title, body: event.body, files: event.files });
    const version = { updatedAt: item.sourceUpdatedAt, contentHash: item.contentHash, embeddingHash: embeddingHash(embedder.model, chunks) };

    const stored = await getItemState(db, item.id);
    const early = verdict(stored, version);
    if (early) {
      // A redelivery of an event already indexed keeps its status; anything else is settled as skipped.
      if (staged.status !== 'indexed') await markEvent(db, eventId, 'skipped');
      return { status: early, itemId: item.id, actorIds: [], embedded: false };
    }
    // The model call happens outside the transaction; equal embedding text reuses the stored vectors.
    const reembed = stored?.embeddingHash !== version.embeddingHash;
    const vectorsOfItem = reembed ? await embedder.embed(chunks) : null;

    const written = await db.transaction(async (tx) => writeItem(tx, { item, event, verdict: (current) => verdict(current, version) }));
    if (written.status !== 'written') {
      await markEvent(db, eventId, 'skipped');
      return { status: written.status, itemId: item.id, actorIds: [], embedded: false };
    }
    if (vectorsOfItem) {
      if (stored?.embeddingHash) await vectors.deleteItems(workspaceId, [item.id]);
      await vectors.upsert(vectorRecords(item, vectorsOfItem));
      const head = vectorsOfItem[0];
      if (head) await assignCluster(db, { workspaceId, itemId: item.id, vector: head });
      // Recorded last: a crash before this line re-embeds on redelivery instead of leaving no vectors.
      await setEmbeddingHash(db, item.id, version.embeddingHash);
    }
    await markEvent(db, eventId, 'indexed');
    logger?.info({ eventId, itemId: item.id, type: item.type, edges: written.edges, embedded: reembed }, 'event indexed');
    return { status: 'indexed', itemId: item.id, actorIds: written.actorIds, embedded: reembed };
  }

  async function reembedAll(workspaceId: string): Promise<number> {
    let after: string | null = null;
    let count = 0;
    for (;;) {
      const page = await listEmbeddableItems(db, workspaceId, after, REEMBED_PAGE);
      if (page.length === 0) return count;
      const chunked = page.map((item) => ({ item, chunks: embeddingChunks({ title: item.title, body: item.content, files: item.files }) }));
      const embedded = await embedder.embed(chunked.flatMap((c) => c.chunks));
      await vectors.deleteItems(workspaceId, page.map((i) => i.id));
      let offset = 0;
      for (const { item, chunks } of chunked) {
        await vectors.upsert(vectorRecords(item, embedded.slice(offset, offset + chunks.length)));
        offset += chunks.length;
        await setEmbeddingHash(db, item.id, embeddingHash(embedder.model, chunks));
      }
      count += page.length;
      after = page[page.length - 1]?.id ?? null;
      logger?.info({ workspaceId, items: count }, 're-embedding');
    }
  }

  return { indexEvent, reembedAll };
}

export { itemIdOf };
