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

