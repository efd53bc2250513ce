/**
 * The lexical thread (`lexicalThread.ts`): scores a job's postings with `scoreLexical`, with the item ids
 * and document lengths of each ordinal space as the jobs sent them.
 */
import { parentPort } from 'node:worker_threads';
import type { PostingsRead } from '@engram/stores';
import { scoreLexical } from './bm25f.js';
import type { LexicalJob, LexicalReply } from './lexicalThread.js';

const port = parentPort!;

/** Item ids and document lengths by ordinal, per space. */
const spaces = new Map<number, { ids: string[]; lengths: number[] }>();

function run(job: LexicalJob): LexicalReply {
  let space = spaces.get(job.space);
  if (!space || job.from === 0) spaces.set(job.space, (space = { ids: [], lengths: [] }));
  if (space.ids.length !== job.from) throw new Error(`space ${job.space} holds ${space.ids.length} ordinals; the job sends from ${job.from}`);
  for (let i = 0; i < job.ids.length; i++) {
    space.ids.push(job.ids[i]!);
    space.lengths.push(job.lengths[i]!);
  }
  const { ids, lengths } = space;
  const { admitted } = job;
  const read: PostingsRead = {
    documents: job.documents,
    avgLength: job.avgLength,
    lists: job.lists,
    admits: (doc) => admitted[doc] === 1,
    itemId: (doc) => ids[doc]!,
    docLength: (doc) => lengths[doc]!,
  };
  return { id: job.id, scores: scoreLexical(read, job.terms, job.params, job.weights ? new Map(job.weights) : undefined) };
}

port.on('message', (job: LexicalJob) => {
  let reply: LexicalReply;
  try {
    reply = run(job);
  } catch (err) {
    reply = { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
  const scores = 'scores' in reply ? reply.scores : null;
  port.postMessage(reply, scores ? [scores.docs.buffer as ArrayBuffer, scores.scores.buffer as ArrayBuffer, scores.table.buffer as ArrayBuffer] : []);
});

port.postMessage({ ready: true });
