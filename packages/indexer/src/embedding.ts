import { sha256, type VectorRecord } from '@engram/stores';
import { chunkText } from './embeddings/index.js';

export const CHUNK_CHARS = 1000;
/** A very long item (a build log) keeps its first chunks; the item is one result either way. */
export const MAX_CHUNKS = 16;

export interface EmbeddingSource {
  title: string | null;
  body: string;
}

/**
 * What an item is embedded from: its prose, title then body. Chunk 0 is the head (title first); further
 * chunks carry the title too, so each stays on topic.
 *
 * The touched paths are left out: the lexical index has their words and the area model their places,
 * while in the sentence encoder a line of 12 paths made a text 2.3x dearer to embed. Without them the
 * encoder embeds 2.6-2.8x more items a second, and rankings held on both evaluation sets (dev out of
 * fold 0.735 -> 0.730, held-out natural questions 0.693 = 0.693, held-out release notes 0.785 -> 0.791,
 * paired difference +0.006 [-0.009, +0.024]; `bench/results/scale-2026-11-26-s9-after.md`). Vectors of an
 * index embedded with paths stay valid beside new ones and are replaced as their items change.
 */
export function embeddingChunks(item: EmbeddingSource): string[] {
  const title = item.title?.trim() ?? '';
  const text = [title, item.body.trim()].filter(Boolean).join('\n\n');
  const chunks = chunkText(text, { maxChars: CHUNK_CHARS }).slice(0, MAX_CHUNKS);
  if (chunks.length === 0) return [title || ' '];
  return chunks.map((chunk, i) => (i === 0 || title === '' ? chunk : `${title}\n\n${chunk}`));
}

/** Changes when the text or the model changes: equal hash, no re-embedding. */
export const embeddingHash = (model: string, chunks: readonly string[]): string => sha256(`${model}\n${chunks.join('\u0000')}`);

/** Chunk 0 carries the item id; the others `<itemId>#<n>`. */
export const chunkId = (itemId: string, n: number): string => (n === 0 ? itemId : `${itemId}#${n}`);

export function vectorRecords(
  item: { id: string; workspaceId: string; source: string; type: string; occurredAt: string; actorNames: string[] },
  vectors: readonly number[][],
): VectorRecord[] {
  return vectors.map((vector, n) => ({
    id: chunkId(item.id, n),
    itemId: item.id,
    workspaceId: item.workspaceId,
    vector,
    source: item.source,
    type: item.type,
    occurredAt: item.occurredAt,
    actorNames: item.actorNames,
  }));
}
