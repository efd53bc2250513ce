import { sha256, type VectorRecord } from '@engram/stores';
import { chunkText } from './embeddings/index.js';

/** At most this many file paths go into the embedding text: enough to say where a change lives. */
const EMBEDDED_FILES = 12;
export const CHUNK_CHARS = 1000;
/** A very long item (a build log) keeps its first chunks; the item is one result either way. */
export const MAX_CHUNKS = 16;

export interface EmbeddingSource {
  title: string | null;
  body: string;
  files: readonly string[];
}

/**
 * What an item is embedded from: title, body, then the touched paths on one compact line.
 * Chunk 0 is the head (title first); further chunks carry the title too, so each stays on topic.
 */
export function embeddingChunks(item: EmbeddingSource): string[] {
  const title = item.title?.trim() ?? '';
  const files = item.files.length ? `Files: ${item.files.slice(0, EMBEDDED_FILES).join(' ')}` : '';
  const text = [title, item.body.trim(), files].filter(Boolean).join('\n\n');
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
