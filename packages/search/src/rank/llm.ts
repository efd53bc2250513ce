/**
 * The `thorough` second stage: an LLM (any OpenAI-compatible chat endpoint) judges the candidates in
 * small batches sent in parallel under one deadline, and its judgement is blended with the stage-1
 * score the candidate arrives with (`fused`; the service passes the `balanced` score there):
 * `final = weight * llm + (1 - weight) * stage1`.
 * A batch that fails, times out or answers unusable JSON keeps its stage-1 scores; when every batch
 * fails the scorer throws LlmUnavailableError, so the service answers as `balanced` and says so.
 *
 * Prompt contract (test/fakes/openai/prompt.ts): a system message with the instructions, then a user
 * message with one `Query: <text>` line and one `[<i>] <text>` line per candidate (i = 0-based
 * within the batch, text on one line); the answer is `{"scores":[{"index":i,"score":0..1}, ...]}`.
 */
import OpenAI from 'openai';
import { z } from 'zod';
import type { Candidate, Reranker } from './types.js';

export class LlmUnavailableError extends Error {
  override name = 'LlmUnavailableError';
}

export interface LlmScorerOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Deadline for the whole call; batches still running then keep their stage-1 scores. */
  timeoutMs: number;
  /** Batches in flight at once. Default 4. */
  concurrency?: number;
  /** Candidates per request. Default 5. */
  batchSize?: number;
  /** Share of the LLM judgement in the final score. Default 0.6. */
  weight?: number;
  /** Longest candidate text in the prompt. Default 500 characters. */
  maxChars?: number;
  /** An already configured client (tests, shared connection pool). */
  client?: OpenAI;
}

export const SYSTEM_PROMPT = [
  "You judge search results from a software team's memory (pull requests, commits, issues, documents).",
  'For the query, rate how relevant each numbered candidate is: 1 = it is exactly the change or item the query describes,',
  '0.5 = closely related, 0 = unrelated. Judge by meaning, not by shared words alone.',
  'Answer only with JSON: {"scores":[{"index":<candidate number>,"score":<0..1>}, ...]}, one entry per candidate.',
].join(' ');

const Answer = z.object({ scores: z.array(z.object({ index: z.coerce.number().int(), score: z.coerce.number() })) });

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The user message of the prompt contract for one batch. */
export function relevancePrompt(query: string, batch: readonly Candidate[], maxChars: number): string {
  const lines = batch.map((c, i) => {
    const body = oneLine(c.snippet || c.content);
    return `[${i}] (${c.type}, ${c.occurredAt.slice(0, 10)}) ${oneLine(c.title)}${body ? ` — ${body}` : ''}`.slice(0, maxChars);
  });
  return [`Query: ${oneLine(query)}`, 'Candidates:', ...lines].join('\n');
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0);

export function createLlmScorer(options: LlmScorerOptions): Reranker {
  const { model, timeoutMs, concurrency = 4, batchSize = 5, weight = 0.6, maxChars = 500 } = options;
  const client = options.client ?? new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 0, timeout: timeoutMs });

  async function judge(query: string, batch: readonly Candidate[], signal: AbortSignal): Promise<(number | undefined)[]> {
    const completion = await client.chat.completions.create(
      {
        model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: relevancePrompt(query, batch, maxChars) },
        ],
      },
      { signal, maxRetries: 0, timeout: timeoutMs },
    );
    const content = completion.choices[0]?.message.content ?? '';
    const { scores } = Answer.parse(JSON.parse(content));
    const out = new Array<number | undefined>(batch.length).fill(undefined);
    for (const { index, score } of scores) if (index >= 0 && index < batch.length) out[index] = clamp01(score);
    if (out.every((s) => s === undefined)) throw new Error('the LLM answer scored none of the candidates');
    return out;
  }

  return {
    name: `llm:${model}`,
    async rerank(query, candidates, rerankOptions = {}) {
      if (candidates.length === 0) return [];
      const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(rerankOptions.signal ? [rerankOptions.signal] : [])]);
      const final = candidates.map((c) => clamp01(c.fused));
      const batches: number[] = [];
      for (let start = 0; start < candidates.length; start += batchSize) batches.push(start);
      const errors: unknown[] = [];
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < batches.length) {
          const start = batches[next++]!;
          const batch = candidates.slice(start, start + batchSize);
          try {
            if (deadline.aborted) throw deadline.reason;
            const judged = await judge(query, batch, deadline);
            judged.forEach((llm, i) => {
              if (llm !== undefined) final[start + i] = weight * llm + (1 - weight) * final[start + i]!;
            });
          } catch (error) {
            errors.push(error);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
      if (errors.length === batches.length) {
        const first = errors[0] as Error | undefined;
        throw new LlmUnavailableError(`every LLM batch failed (${errors.length}): ${first?.message ?? String(first)}`, { cause: first });
      }
      return final;
    },
  };
}
