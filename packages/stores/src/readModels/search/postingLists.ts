import type { PostingList } from './types.js';

const FIELD_SHIFT: Record<string, number> = { A: 0, B: 8, C: 16, D: 24 };

/** Term frequency per field from a posting's per-position weights ('A', 'B', 'C', 'D'), packed 8 bits each. */
export function packFields(weights: readonly string[]): number {
  const tf = [0, 0, 0, 0];
  for (const w of weights) count(tf, w);
  return pack(tf);
}

/** One more position of weight `w` ('A'..'D'; anything else counts as D) in `tf`, saturating at 255. */
function count(tf: number[], w: string): void {
  const field = (FIELD_SHIFT[w] ?? 24) / 8;
  tf[field] = Math.min(255, tf[field]! + 1);
}

const pack = (tf: readonly number[]): number => (tf[0]! | (tf[1]! << 8) | (tf[2]! << 16) | (tf[3]! << 24)) >>> 0;

/** Term frequency of field `A`..`D` (0..3) of a packed posting. */
export const fieldTf = (packed: number, field: 0 | 1 | 2 | 3): number => (packed >>> (field * 8)) & 0xff;

/**
 * A growable posting list: postings are appended as documents are indexed, and a replaced or deleted
 * document's postings stay until `compact` drops them (the reader skips them by the document's
 * liveness). `live` counts the postings of live documents: the term's document frequency.
 *
 * Its arrays are on SharedArrayBuffers, and what a reader saw of them never changes: appends write past
 * `count`, growing and compacting make new arrays. So another thread can score a read's first `count`
 * postings in place while this one goes on appending (`lexicalThread.ts` in the search package): a
 * query's lists at 100k items are megabytes, and copying them for each search cost more than scoring them.
 */
export class GrowingPostingList implements PostingList {
  count = 0;
  live = 0;
  dead = 0;
  docs = shared(Int32Array, 4);
  fields = shared(Uint32Array, 4);
  posStart = shared(Uint32Array, 5);
  positions = shared(Uint16Array, 8);

  constructor(readonly term: string) {}

  get df(): number {
    return this.live;
  }

  append(doc: number, fields: number, positions: ArrayLike<number>): void {
    if (this.count === this.docs.length) {
      const size = this.docs.length * 2;
      this.docs = grow(this.docs, size, Int32Array);
      this.fields = grow(this.fields, size, Uint32Array);
      this.posStart = grow(this.posStart, size + 1, Uint32Array);
    }
    const at = this.posStart[this.count]!;
    if (at + positions.length > this.positions.length) {
      this.positions = grow(this.positions, Math.max(this.positions.length * 2, at + positions.length), Uint16Array);
    }
    for (let i = 0; i < positions.length; i++) this.positions[at + i] = Math.min(65535, positions[i]!);
    this.docs[this.count] = doc;
    this.fields[this.count] = fields;
    this.count++;
    this.posStart[this.count] = at + positions.length;
    this.live++;
  }

  /** One of this term's documents was replaced or deleted. */
  retire(): void {
    this.live--;
    this.dead++;
  }

  /** Drops the postings of documents that are no longer live, keeping order, into new arrays. */
  compact(isLive: (doc: number) => boolean): void {
    let kept = 0;
    let keptPositions = 0;
    for (let p = 0; p < this.count; p++) {
      if (!isLive(this.docs[p]!)) continue;
      kept++;
      keptPositions += this.posStart[p + 1]! - this.posStart[p]!;
    }
    const docs = shared(Int32Array, Math.max(4, kept));
    const fields = shared(Uint32Array, Math.max(4, kept));
    const posStart = shared(Uint32Array, Math.max(4, kept) + 1);
    const positions = shared(Uint16Array, Math.max(8, keptPositions));
    let out = 0;
    let pos = 0;
    for (let p = 0; p < this.count; p++) {
      const doc = this.docs[p]!;
      if (!isLive(doc)) continue;
      const start = this.posStart[p]!;
      const end = this.posStart[p + 1]!;
      docs[out] = doc;
      fields[out] = this.fields[p]!;
      posStart[out] = pos;
      positions.set(this.positions.subarray(start, end), pos);
      pos += end - start;
      out++;
    }
    posStart[out] = pos;
    this.docs = docs;
    this.fields = fields;
    this.posStart = posStart;
    this.positions = positions;
    this.count = out;
    this.dead = 0;
  }

  /** Whether enough of the list is dead that compacting it pays. */
  get wasteful(): boolean {
    return this.dead > 32 && this.dead * 2 > this.count;
  }
}

type TypedArray = Int32Array | Uint32Array | Uint16Array;
type TypedArrayKind<T extends TypedArray> = { new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number };

/** A typed array of `length` elements on a SharedArrayBuffer of its own. */
function shared<T extends TypedArray>(Kind: TypedArrayKind<T>, length: number): T {
  return new Kind(new SharedArrayBuffer(length * Kind.BYTES_PER_ELEMENT));
}

function grow<T extends TypedArray>(array: T, size: number, Kind: TypedArrayKind<T>): T {
  const next = shared(Kind, size);
  next.set(array);
  return next;
}

/** One term of a document: its term frequency per field packed as `packFields` does, and its token positions. */
export interface DocumentTerm {
  term: string;
  fields: number;
  positions: number[];
}

/**
 * A `tsvector` in PostgreSQL's text form (`'lexeme':1A,5,7B 'it''s':3`) as its terms, in the order it
 * lists them: what `unnest(tsvector)` gives row by row (a position without a letter has weight D), read
 * from one string. The in-memory read model loads documents this way: the per-term rows of `postings`
 * cost PGlite about 40 ms to decode for 256 items, the same vectors as text about 3 ms.
 */
export function parseTsvector(text: string): DocumentTerm[] {
  const out: DocumentTerm[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (text.charCodeAt(i) === 32) {
      i++;
      continue;
    }
    if (text[i] !== "'") throw new Error(`malformed tsvector at ${i}: expected a quoted lexeme`);
    i++;
    let term = '';
    let start = i;
    for (;;) {
      if (i >= n) throw new Error('malformed tsvector: unterminated lexeme');
      const c = text[i];
      if (c === "'") {
        if (text[i + 1] === "'") {
          term += text.slice(start, i + 1);
          i += 2;
          start = i;
          continue;
        }
        term += text.slice(start, i);
        i++;
        break;
      }
      if (c === '\\') {
        term += text.slice(start, i);
        start = i + 1;
        i += 2;
        continue;
      }
      i++;
    }
    const tf = [0, 0, 0, 0];
    const positions: number[] = [];
    if (text[i] === ':') {
      i++;
      for (;;) {
        let pos = 0;
        let digits = 0;
        for (let d = text.charCodeAt(i); d >= 48 && d <= 57; d = text.charCodeAt(++i), digits++) pos = pos * 10 + (d - 48);
        if (digits === 0) throw new Error(`malformed tsvector at ${i}: expected a position`);
        positions.push(pos);
        // A weight letter follows the position (PostgreSQL writes none for D); anything else ends it.
        const weight = text[i]!;
        if (weight in FIELD_SHIFT) i++;
        count(tf, weight);
        if (text[i] !== ',') break;
        i++;
      }
    }
    out.push({ term, fields: pack(tf), positions });
  }
  return out;
}
