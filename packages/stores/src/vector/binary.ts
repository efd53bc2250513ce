/**
 * Vectors as bytes. A vector stored as a JSON array is parsed into `numeric` values number by number on
 * the database side and formatted back on every read: on PGlite (WebAssembly) the embedding cache's writes
 * took ~2 ms a 512-dimension vector (`npm run bench -- vector-writes`). Bytes are copied instead.
 */

/** Big-endian float4s, as Postgres's `float4send` writes them (`embedding_cache.vector`). */
export function float4Bytes(v: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(4 * v.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(4 * i, v[i]!);
  return out;
}

/** The numbers of `float4Bytes`. */
export function fromFloat4Bytes(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<number>(bytes.byteLength >> 2);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i);
  return out;
}

/** `ARRAY[$first::type, ...]` for `count` parameters from `$first` on, one a value (a `Uint8Array` for bytea). */
export function paramArray(first: number, count: number, type: string): string {
  return `ARRAY[${Array.from({ length: count }, (_, i) => `$${first + i}::${type}`).join(', ')}]::${type}[]`;
}

