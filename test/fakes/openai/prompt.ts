// The prompt contract the fake chat endpoint understands (the LLM relevance scorer must follow it):
//   messages[0]  role 'system'  (instructions; ignored by the fake)
//   messages[1]  role 'user'    containing one line `Query: <text>` and one line per candidate
//                               `[<index>] <text>` (index = integer, usually 0-based)
// Answer (message content, a JSON object, also when response_format is json_object):
//   {"scores":[{"index":<index>,"score":<0..1>}, ...]}  one entry per candidate, in prompt order,
//   score = share of the query's words found in the candidate.
import { overlapScore } from './words.js';

export interface ScoredCandidate {
  index: number;
  score: number;
}

export interface RelevancePrompt {
  query: string;
  candidates: { index: number; text: string }[];
}

export function parseRelevancePrompt(user: string): RelevancePrompt | null {
  const query = /^\s*Query:\s*(.*)$/m.exec(user)?.[1]?.trim();
  if (query === undefined) return null;
  const candidates = [...user.matchAll(/^\s*\[(\d+)\]\s*(.*)$/gm)].map((match) => ({
    index: Number(match[1]),
    text: match[2] ?? '',
  }));
  return { query, candidates };
}

export function scoreRelevance(prompt: RelevancePrompt): ScoredCandidate[] {
  return prompt.candidates.map(({ index, text }) => ({ index, score: overlapScore(prompt.query, text) }));
}
