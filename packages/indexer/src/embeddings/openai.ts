// Any OpenAI-compatible embeddings endpoint: OpenAI itself, Azure's v1 API, Ollama, vLLM, TEI.
// The SDK's own retries are off so that backoff, `retry-after` and their limits live in retry.ts.
import OpenAI from 'openai';
import { withRetry, type RetryPolicy } from './retry.js';
import type { EmbedOptions, EmbeddingProvider } from './types.js';
import { normalizeVector } from './vectors.js';

export interface OpenAIEmbedderOptions {
  apiKey: string;
  /** e.g. http://localhost:11434/v1 for Ollama. Defaults to OpenAI. */
  baseURL?: string;
  model: string;
  /** Requested output size (models that support shortening, e.g. text-embedding-3-*). */
  dimensions?: number;
  /** Texts per request. Default 128. */
  batchSize?: number;
  /** Retries per request on 429, 5xx and dropped connections. Default 5. */
  maxRetries?: number;
  /** First backoff step when the server sends no `retry-after`. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Longest single wait. Default 30 s. */
  maxRetryDelayMs?: number;
  /** Per-request timeout. Default 60 s. */
  timeoutMs?: number;
}

export const DEFAULT_OPENAI_BATCH_SIZE = 128;

export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): EmbeddingProvider {
  const batchSize = options.batchSize ?? DEFAULT_OPENAI_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? 60_000,
  });
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? 5,
    baseDelayMs: options.retryBaseDelayMs ?? 500,
    maxDelayMs: options.maxRetryDelayMs ?? 30_000,
  };
  const model = options.dimensions ? `openai:${options.model}:${options.dimensions}` : `openai:${options.model}`;
  /** Length of the vectors the endpoint actually returns, known after the first response. */
  let observed: number | undefined;

  async function embedBatch(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    // Endpoints reject empty strings; a blank text embeds as a single space instead.
    const input = texts.map((text) => (text.trim() === '' ? ' ' : text));
    const response = await withRetry(
      () =>
        client.embeddings.create(
          {
            model: options.model,
            input,
            encoding_format: 'float',
            ...(options.dimensions ? { dimensions: options.dimensions } : {}),
          },
          { signal },
        ),
      policy,
      signal,
    );
    if (response.data.length !== texts.length) {
      throw new Error(`${model} returned ${response.data.length} embeddings for ${texts.length} inputs`);
    }
    const rows = [...response.data].sort((a, b) => a.index - b.index);
    return rows.map((row) => {
      if (observed !== undefined && row.embedding.length !== observed) {
        throw new Error(`${model} returned a ${row.embedding.length}-dim vector after ${observed}-dim ones`);
      }
      observed = row.embedding.length;
      return normalizeVector(row.embedding);
    });
  }

  return {
    model,
    /** The requested size until the first response, then the size actually returned. */
    get dimensions() {
      return observed ?? options.dimensions ?? 0;
    },
    async embed(texts: string[], { signal }: EmbedOptions = {}) {
      const out: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        out.push(...(await embedBatch(texts.slice(start, start + batchSize), signal)));
      }
      return out;
    },
    async close() {},
  };
}
