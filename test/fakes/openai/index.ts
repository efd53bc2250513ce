// A small OpenAI-compatible HTTP server for tests: embeddings, chat completions (the relevance
// prompt contract in prompt.ts) and a Cohere-compatible rerank, behind Bearer auth, with optional
// leading 429s and 500s to exercise retries, and routes that never answer (`hangs`).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseRelevancePrompt, scoreRelevance } from './prompt.js';
import { bagOfWordsVector, float32Base64, overlapScore, words } from './words.js';
import { listenOnLoopback } from '../listen.js';

export { parseRelevancePrompt, scoreRelevance, type RelevancePrompt, type ScoredCandidate } from './prompt.js';
export { bagOfWordsVector, overlapScore } from './words.js';

export interface FakeOpenAIOptions {
  apiKey: string;
  /** The first N authorised requests (after any rate-limited ones) answer 500. */
  failFirst?: number;
  /** The first N authorised requests answer 429 with retry-after. */
  rateLimitFirst?: number;
  /** Wait the 429s ask for, sent as `retry-after-ms` and (rounded up) `retry-after`. Default 1000. */
  retryAfterMs?: number;
  /** Vector size when a request does not ask for `dimensions`. Default 1536. */
  defaultDimensions?: number;
  /** Routes whose requests are held open without an answer (also settable later through `FakeOpenAI.hangs`). */
  hangs?: FakeOpenAIRoute[];
}

export type FakeOpenAIRoute = 'embeddings' | 'chat' | 'rerank';

export interface FakeOpenAIState {
  /** Every request received, including refused ones. */
  requests: number;
  unauthorized: number;
  rateLimited: number;
  failed: number;
  embeddingRequests: number;
  /** Number of inputs in each successful embeddings request, in arrival order. */
  embeddingBatchSizes: number[];
  chatRequests: number;
  rerankRequests: number;
  /** Requests held open without an answer (`hangs`). */
  hung: number;
  /** Held requests whose client closed the connection (the caller aborted). */
  abandoned: number;
}

export interface FakeOpenAI {
  /** Base URL including `/v1`, as the openai client's `baseURL` expects. */
  url: string;
  state: FakeOpenAIState;
  /** Routes that hang from now on; the test may change it between calls. */
  hangs: Set<FakeOpenAIRoute>;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function errorBody(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, 'request body must be a JSON object');
}

function tokens(texts: string[]): number {
  return texts.reduce((sum, text) => sum + words(text).length, 0);
}

function embeddings(body: Record<string, unknown>, defaultDimensions: number, state: FakeOpenAIState) {
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === 'string' && t.length > 0)) {
    throw new HttpError(400, "'input' must be a non-empty string or array of non-empty strings");
  }
  const dimensions = body.dimensions === undefined ? defaultDimensions : Number(body.dimensions);
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new HttpError(400, "'dimensions' must be a positive integer");
  const base64 = body.encoding_format === 'base64';
  state.embeddingBatchSizes.push(input.length);
  const texts = input as string[];
  return {
    object: 'list',
    model: String(body.model),
    data: texts.map((text, index) => {
      const vector = bagOfWordsVector(text, dimensions);
      return { object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector };
    }),
    usage: { prompt_tokens: tokens(texts), total_tokens: tokens(texts) },
  };
}

function chatCompletion(body: Record<string, unknown>) {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  const user = messages.filter((m) => m.role === 'user' && typeof m.content === 'string').at(-1)?.content as string | undefined;
  const prompt = user === undefined ? null : parseRelevancePrompt(user);
  if (!prompt) throw new HttpError(400, "the fake expects a user message with a 'Query: ...' line and '[i] text' lines");
  const content = JSON.stringify({ scores: scoreRelevance(prompt) });
  return {
    id: `chatcmpl-fake-${prompt.candidates.length}`,
    object: 'chat.completion',
    created: 0,
    model: String(body.model),
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: tokens([user ?? '']), completion_tokens: tokens([content]), total_tokens: 0 },
  };
}

function rerank(body: Record<string, unknown>) {
  const { query, documents } = body;
  if (typeof query !== 'string' || !Array.isArray(documents)) throw new HttpError(400, "'query' and 'documents' are required");
  const texts = documents.map((d: unknown) => (typeof d === 'string' ? d : String((d as { text?: unknown })?.text ?? '')));
  const topN = typeof body.top_n === 'number' ? body.top_n : texts.length;
  const results = texts
    .map((text, index) => ({ index, relevance_score: overlapScore(query, text) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
    .slice(0, topN);
  return { id: 'rerank-fake', results, meta: { billed_units: { search_units: 1 } } };
}

export async function startFakeOpenAI(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  const retryAfterMs = options.retryAfterMs ?? 1000;
  const defaultDimensions = options.defaultDimensions ?? 1536;
  const state: FakeOpenAIState = {
    requests: 0,
    unauthorized: 0,
    rateLimited: 0,
    failed: 0,
    embeddingRequests: 0,
    embeddingBatchSizes: [],
    chatRequests: 0,
    rerankRequests: 0,
    hung: 0,
    abandoned: 0,
  };
  const hangs = new Set<FakeOpenAIRoute>(options.hangs ?? []);
  let closing = false;
  const hang = (res: ServerResponse) => {
    state.hung++;
    res.once('close', () => {
      if (!closing) state.abandoned++;
    });
  };
  let authorised = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    state.requests++;
    if (req.headers.authorization !== `Bearer ${options.apiKey}`) {
      state.unauthorized++;
      return send(res, 401, errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    authorised++;
    if (authorised <= (options.rateLimitFirst ?? 0)) {
      state.rateLimited++;
      const headers = { 'retry-after-ms': String(retryAfterMs), 'retry-after': String(Math.ceil(retryAfterMs / 1000)) };
      return send(res, 429, errorBody('Rate limit reached.', 'requests', 'rate_limit_exceeded'), headers);
    }
    if (authorised <= (options.rateLimitFirst ?? 0) + (options.failFirst ?? 0)) {
      state.failed++;
      return send(res, 500, errorBody('The server had an error while processing your request.', 'server_error'));
    }
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} not allowed`);
    const body = await readJson(req);
    const route: FakeOpenAIRoute | null = path === '/v1/embeddings' ? 'embeddings' : path === '/v1/chat/completions' ? 'chat' : path === '/v1/rerank' ? 'rerank' : null;
    if (route && hangs.has(route)) return hang(res);
    if (path === '/v1/embeddings') {
      state.embeddingRequests++;
      return send(res, 200, embeddings(body, defaultDimensions, state));
    }
    if (path === '/v1/chat/completions') {
      state.chatRequests++;
      return send(res, 200, chatCompletion(body));
    }
    if (path === '/v1/rerank') {
      state.rerankRequests++;
      return send(res, 200, rerank(body));
    }
    throw new HttpError(404, `no route for ${path}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      send(res, status, errorBody(String((error as Error)?.message ?? error), 'invalid_request_error'));
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return {
    url: `${origin}/v1`,
    state,
    hangs,
    close: () => {
      closing = true;
      return close();
    },
  };
}
