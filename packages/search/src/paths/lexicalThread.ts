/**
 * The lexical thread: BM25F scoring (`bm25f.ts`) of a read from the in-memory index, off the event loop
 * that answers searches. Under 16 searching clients at 100k items the lexical path was a third of the event
 * loop's time while the second core was partly idle.
 *
 * A job carries the query's posting lists (shared, where they are on SharedArrayBuffers: the in-memory
 * index's lists are, and what a read saw of them never changes; copied otherwise) and which of their
 * documents the filter admits. Item ids and document
 * lengths are held by the thread per ordinal space (`StableOrdinals`): a job sends only the ordinals
 * appended since the last one, in order with every other message. A thread that dies takes its spaces
 * with it; the next job starts it again and sends each space from the start.
 */
import type { Transferable } from 'node:worker_threads';
import { replyingThread, type PostingList, type PostingsRead, type StableOrdinals } from '@engram/stores';
import { arrayPool } from '../arrayPool.js';
import type { LexicalParams, LexicalScores } from './bm25f.js';

export interface LexicalJob {
  id: number;
  space: number;
  /** The ordinal of the first of `ids` and `lengths`: how many of the space the thread holds already. */
  from: number;
  ids: string[];
  lengths: Float64Array;
  documents: number;
  avgLength: number;
  lists: PostingList[];
  /** By ordinal, up to the lists' last document: 1 where the filter admits it (shared; reused once the job is answered). */
  admitted: Uint8Array;
  terms: readonly string[];
  params: LexicalParams;
  weights?: [string, number][];
}

export type LexicalReply = { id: number; scores: LexicalScores | null } | { id: number; error: string };

const thread = replyingThread<LexicalJob, { id: number; scores: LexicalScores | null }>(
  new URL(import.meta.url.endsWith('.ts') ? './lexicalWorker.ts' : './lexicalWorker.js', import.meta.url),
  'lexical scoring',
);

/** Ordinals of each space the running thread holds, and which start of it that is. */
const held = { epoch: 0, spaces: new Map<number, number>() };

/**
 * `scoreLexical` of `postings` on the lexical thread (null: the workspace holds none of the terms). Rejects
 * when the thread fails or cannot start; the caller then scores on its own thread.
 */
export async function scoreOffThread(
  postings: PostingsRead,
  stable: StableOrdinals,
  terms: readonly string[],
  params: LexicalParams,
  weights?: ReadonlyMap<string, number>,
): Promise<LexicalScores | null> {
  const epoch = thread.epoch();
  if (epoch === null) throw new Error('the lexical thread could not start');
  if (held.epoch !== epoch) {
    held.epoch = epoch;
    held.spaces.clear();
  }
  // Everything the job reads of the index is taken now, in this turn: the index moves on meanwhile.
  const { job, transfer } = jobOf(postings, stable, terms, params, weights);
  try {
    return (await thread.request((id) => ({ ...job, id }), transfer)).scores;
  } finally {
    // Answered, or the thread is gone: the mask is free again.
    masks.give(job.admitted);
  }
}

/**
 * Admission masks (a byte an ordinal) on SharedArrayBuffers, each back here once its job is answered: a
 * fresh 100 KB array a search at 100k items cost more in page faults than copying into it (a third of the
 * server's faults under 16 clients, on a VM where a fault costs 13 us). Made with room to grow: an index
 * gains ordinals with every write.
 */
const masks = arrayPool((length): Uint8Array => new Uint8Array(new SharedArrayBuffer(Math.ceil(length * 1.25) + 1024)));

function jobOf(
  postings: PostingsRead,
  stable: StableOrdinals,
  terms: readonly string[],
  params: LexicalParams,
  weights?: ReadonlyMap<string, number>,
): { job: Omit<LexicalJob, 'id'>; transfer: Transferable[] } {
  const transfer: Transferable[] = [];
  let maxDoc = -1;
  const lists = postings.lists.map((list): PostingList => {
    const { term, df, count } = list;
    if (count > 0) maxDoc = Math.max(maxDoc, list.docs[count - 1]!);
    // Lists on SharedArrayBuffers are read in place (their first `count` postings never change);
    // others are copied.
    if ([list.docs, list.fields, list.posStart, list.positions].every((a) => a.buffer instanceof SharedArrayBuffer)) {
      return { term, df, count, docs: list.docs, fields: list.fields, posStart: list.posStart, positions: list.positions };
    }
    const copy = {
      term,
      df,
      count,
      docs: list.docs.slice(0, count),
      fields: list.fields.slice(0, count),
      posStart: list.posStart.slice(0, count + 1),
      positions: list.positions.slice(0, list.posStart[count]!),
    };
    transfer.push(copy.docs.buffer, copy.fields.buffer, copy.posStart.buffer, copy.positions.buffer);
    return copy;
  });
  const admitted = masks.take(maxDoc + 1);
  if (stable.live) {
    admitted.set(stable.live.subarray(0, maxDoc + 1));
  } else {
    // 1: admitted, 2: not (the thread admits 1 only).
    admitted.fill(0, 0, maxDoc + 1);
    for (const list of postings.lists) {
      for (let p = 0; p < list.count; p++) {
        const doc = list.docs[p]!;
        if (admitted[doc] === 0) admitted[doc] = postings.admits(doc) ? 1 : 2;
      }
    }
  }
  const from = held.spaces.get(stable.space) ?? 0;
  const to = stable.ids.length;
  const lengths = Float64Array.from(stable.lengths.slice(from, to));
  transfer.push(lengths.buffer);
  held.spaces.set(stable.space, to);
  const job: Omit<LexicalJob, 'id'> = {
    space: stable.space,
    from,
    ids: stable.ids.slice(from, to),
    lengths,
    documents: postings.documents,
    avgLength: postings.avgLength,
    lists,
    admitted,
    terms,
    params,
    ...(weights ? { weights: [...weights] } : {}),
  };
  return { job, transfer };
}
