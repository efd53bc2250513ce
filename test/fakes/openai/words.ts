// Deterministic text features for the fake OpenAI-compatible server: a hashed bag of words for
// embeddings (texts sharing words get similar vectors) and word overlap for relevance scores.
const STOPWORDS = new Set(
  'a an and are as at be by for from has in is it of on or that the this to was were will with'.split(' '),
);

/** Lower-cased words, camelCase split, a plural `s` dropped, stopwords removed. */
export function words(text: string): string[] {
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return (spaced.match(/[a-z0-9]+/g) ?? [])
    .filter((word) => !STOPWORDS.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word));
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A unit vector: each word adds ±1 at a hashed position. */
export function bagOfWordsVector(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of words(text)) {
    const hash = fnv1a(word);
    vector[hash % dimensions]! += hash & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...vector);
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((value) => value / norm);
}

/** Share of the query's distinct words found in the candidate, rounded to 2 decimals. */
export function overlapScore(query: string, candidate: string): number {
  const wanted = new Set(words(query));
  if (wanted.size === 0) return 0;
  const present = new Set(words(candidate));
  let hits = 0;
  for (const word of wanted) if (present.has(word)) hits++;
  return Math.round((hits / wanted.size) * 100) / 100;
}

export function float32Base64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}
