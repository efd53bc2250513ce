/** Scales a vector to unit length; a zero vector stays zero. */
export function normalizeVector(values: ArrayLike<number>): number[] {
  let sumOfSquares = 0;
  for (let i = 0; i < values.length; i++) sumOfSquares += (values[i] ?? 0) ** 2;
  const norm = Math.sqrt(sumOfSquares);
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = norm === 0 ? 0 : (values[i] ?? 0) / norm;
  return out;
}

/** Cosine similarity; for unit vectors this is the dot product. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`cosineSimilarity: length ${a.length} != ${b.length}`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error('The operation was aborted');
  error.name = 'AbortError';
  return error;
}
