/**
 * Vectors as bytes. A vector stored as a JSON array is parsed into `numeric` values number by number on
 * the database side and formatted back on every read: on PGlite (WebAssembly) the embedding cache's
 * writes took ~1 ms a 512-dimension vector. Bytes are copied instead.
 */

/** Big-endian float4s, as Postgres's `float4send` writes them (`embedding_cache.vector`). */
export function float4Bytes(v: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(4 * v.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(4 * i, v[i]!);
  return out;
}

/**
 * `float4Bytes` as hex text, for `decode(..., 'hex')` in SQL (and read back with `encode(..., 'hex')`):
 * PGlite's own bytea codec goes byte by byte in JavaScript, Node's hex codec is native. On PGlite a batch
 * of 128 vectors: JSON 137.3 ms, bytea parameters 62.6 ms, a text[] of hex 28.2 ms (`npm run bench -- vector-writes`).
 */
export function float4Hex(v: ArrayLike<number>): string {
  const bytes = float4Bytes(v);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** The numbers of `float4Hex`. */
export function fromFloat4Hex(hex: string): number[] {
  return fromFloat4Bytes(Buffer.from(hex, 'hex'));
}

/** The numbers of `float4Bytes`. */
export function fromFloat4Bytes(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<number>(bytes.byteLength >> 2);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i);
  return out;
}

const COPY_SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];
const TEXT_OID = 25;
const utf8 = new TextEncoder();

/**
 * Rows in COPY's binary format (`COPY t (...) FROM ... WITH (FORMAT binary)`), field by field in column
 * order: text as UTF-8, `text[]` and pgvector's `vector` as their `_recv` functions read them. A vector
 * goes in as float4 bytes, so the database parses no decimal text: on PGlite the vector store's upsert of
 * 128 vectors of 512 dimensions with their filter columns took 209 ms as pgvector literals in JSON and
 * 29 ms this way (`npm run bench -- vector-writes`).
 */
export class CopyBinaryRows {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  private at = 0;

  constructor() {
    // The signature, then flags and header-extension length: both 0 (the buffer starts zeroed).
    this.buf.set(COPY_SIGNATURE, 0);
    this.at = COPY_SIGNATURE.length + 8;
  }

  /** Starts a row of `fields` fields. */
  row(fields: number): this {
    this.reserve(2);
    this.view.setInt16(this.at, fields);
    this.at += 2;
    return this;
  }

  text(value: string): this {
    const bytes = utf8.encode(value);
    this.reserve(4 + bytes.length);
    this.view.setInt32(this.at, bytes.length);
    this.buf.set(bytes, this.at + 4);
    this.at += 4 + bytes.length;
    return this;
  }

  /** A one-dimensional `text[]` (no nulls). */
  textArray(values: readonly string[]): this {
    const items = values.map((v) => utf8.encode(v));
    const size = (values.length === 0 ? 12 : 20) + items.reduce((n, b) => n + 4 + b.length, 0);
    this.reserve(4 + size);
    const v = this.view;
    let o = this.at;
    v.setInt32(o, size);
    v.setInt32(o + 4, values.length === 0 ? 0 : 1); // dimensions
    v.setInt32(o + 8, 0); // has nulls
    v.setInt32(o + 12, TEXT_OID);
    o += 16;
    if (values.length > 0) {
      v.setInt32(o, values.length);
      v.setInt32(o + 4, 1); // lower bound
      o += 8;
      for (const b of items) {
        v.setInt32(o, b.length);
        this.buf.set(b, o + 4);
        o += 4 + b.length;
      }
    }
    this.at = o;
    return this;
  }

  /** A pgvector `vector`: its dimension count, a reserved int16, then big-endian float4s. */
  vector(values: ArrayLike<number>): this {
    const size = 4 + 4 * values.length;
    this.reserve(4 + size);
    const v = this.view;
    v.setInt32(this.at, size);
    v.setInt16(this.at + 4, values.length);
    v.setInt16(this.at + 6, 0);
    let o = this.at + 8;
    for (let i = 0; i < values.length; i++, o += 4) v.setFloat32(o, values[i]!);
    this.at = o;
    return this;
  }

  /** The rows with COPY's trailer; the writer is spent. */
  finish(): Uint8Array {
    this.reserve(2);
    this.view.setInt16(this.at, -1);
    this.at += 2;
    return this.buf.subarray(0, this.at);
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + bytes) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.at));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }
}
