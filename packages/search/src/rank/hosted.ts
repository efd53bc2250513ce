/**
 * A hosted cross-encoder as the `balanced` second stage, over the rerank API that Cohere, Jina,
 * Voyage and Hugging Face TEI speak: `POST {url}/rerank`.
 * - `cohere` request: `{model, query, documents: string[], top_n}`; answer `{results: [{index, relevance_score}]}`
 *   (Voyage answers `{data: [...]}`).
 * - `tei` request: `{query, texts: string[], raw_scores: false}`; answer `[{index, score}]`.
 * - `auto` (default): starts with the Cohere shape and switches to TEI for good the first time the
 *   server rejects it with 400/422. Every answer shape is understood whatever was sent.
 * Scores already in [0, 1] are kept; raw logits (any score outside [0, 1]) go through a sigmoid. A
 * document the server leaves out (top_n) scores 0. 429 and 5xx are retried with backoff (honouring
 * `retry-after-ms` / `retry-after`), each attempt under `timeoutMs`.
 */
import { z } from 'zod';
import type { Candidate, Reranker } from './types.js';

export type RerankProtocol = 'cohere' | 'tei' | 'auto';

export interface HostedRerankerOptions {
  /** Base URL; the request goes to `{url}/rerank` (e.g. `https://api.cohere.com/v2`, `http://tei:8080`). */
  url: string;
  apiKey?: string;
  model: string;
  protocol?: RerankProtocol;
  /** Per attempt. Default 5000. */
  timeoutMs?: number;
  /** Attempts after the first on 429/5xx/network errors. Default 2. */
  retries?: number;
  /** Longest text sent per document. Default 2000 characters. */
  maxDocumentChars?: number;
  /** Base backoff; doubles per attempt when the server gives no retry-after. Default 250 ms. */
  backoffMs?: number;
  fetch?: typeof fetch;
}

export class HostedRerankerError extends Error {
  override name = 'HostedRerankerError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const Scored = z.object({ index: z.number().int().min(0), relevance_score: z.number().optional(), score: z.number().optional() });
const RerankAnswer = z.union([z.object({ results: z.array(Scored) }), z.object({ data: z.array(Scored) }), z.array(Scored)]);

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** Scores in candidate order, in [0, 1], from any of the answer shapes. */
export function parseRerankAnswer(body: unknown, count: number): number[] {
  const parsed = RerankAnswer.parse(body);
  const entries = Array.isArray(parsed) ? parsed : 'results' in parsed ? parsed.results : parsed.data;
  const raw = entries.map((e) => ({ index: e.index, score: e.relevance_score ?? e.score ?? 0 }));
  const logits = raw.some((e) => e.score < 0 || e.score > 1);
  const scores = new Array<number>(count).fill(0);
  for (const { index, score } of raw) if (index < count) scores[index] = logits ? sigmoid(score) : score;
  return scores;
}

const documentOf = (c: Candidate, max: number): string => `${c.title}\n${c.content || c.snippet}`.slice(0, max);

function retryDelay(response: Response | null, attempt: number, base: number): number {
  const ms = Number(response?.headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const seconds = Number(response?.headers.get('retry-after'));
  if (Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
  return base * 2 ** attempt;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

export function createHostedReranker(options: HostedRerankerOptions): Reranker {
  const { url, apiKey, model, timeoutMs = 5000, retries = 2, maxDocumentChars = 2000, backoffMs = 250 } = options;
  const doFetch = options.fetch ?? fetch;
  let protocol: 'cohere' | 'tei' = options.protocol === 'tei' ? 'tei' : 'cohere';
  const endpoint = `${url.replace(/\/+$/, '')}/rerank`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };

  const bodyFor = (query: string, documents: string[]) =>
    protocol === 'cohere' ? { model, query, documents, top_n: documents.length } : { query, texts: documents, raw_scores: false, truncate: true };

  return {
    name: `hosted:${model}`,
    async rerank(query, candidates, rerankOptions = {}) {
      if (candidates.length === 0) return [];
      const documents = candidates.map((c) => documentOf(c, maxDocumentChars));
      let lastError: HostedRerankerError | null = null;
      for (let attempt = 0; attempt <= retries; attempt++) {
        const signals = [AbortSignal.timeout(timeoutMs), ...(rerankOptions.signal ? [rerankOptions.signal] : [])];
        let response: Response | null = null;
        try {
          response = await doFetch(endpoint, { method: 'POST', headers, body: JSON.stringify(bodyFor(query, documents)), signal: AbortSignal.any(signals) });
        } catch (error) {
          if (rerankOptions.signal?.aborted) throw error;
          lastError = new HostedRerankerError(`rerank request failed: ${(error as Error).message}`);
        }
        if (response?.ok) return parseRerankAnswer(await response.json(), candidates.length);
        if (response && (response.status === 400 || response.status === 422) && options.protocol !== 'cohere' && options.protocol !== 'tei' && protocol === 'cohere') {
          protocol = 'tei';
          attempt--; // a shape switch is not a retry
          continue;
        }
        if (response) {
          lastError = new HostedRerankerError(`rerank answered ${response.status}: ${(await response.text()).slice(0, 300)}`, response.status);
          if (response.status !== 429 && response.status < 500) throw lastError;
        }
        if (attempt < retries) await sleep(retryDelay(response, attempt, backoffMs), rerankOptions.signal);
      }
      throw lastError ?? new HostedRerankerError('rerank failed');
    },
  };
}
