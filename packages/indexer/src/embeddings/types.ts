export interface EmbedOptions {
  signal?: AbortSignal;
}

/** Turns texts into L2-normalised vectors, returned in input order. */
export interface EmbeddingProvider {
  /** Identifies the vector space, e.g. 'use-lite-512' or 'openai:text-embedding-3-small'. */
  readonly model: string;
  readonly dimensions: number;
  embed(texts: string[], options?: EmbedOptions): Promise<number[][]>;
  close(): Promise<void>;
}

/** Vectors keyed by (model, sha256 of the text). The stores package implements it over Postgres. */
export interface EmbeddingCache {
  get(model: string, hashes: string[]): Promise<Map<string, number[]>>;
  put(model: string, entries: { hash: string; vector: number[] }[]): Promise<void>;
}
