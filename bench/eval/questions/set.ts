/**
 * The natural-question set (`questions.json` beside this file): bugs in a user's words, "who knows about
 * X", "how do we do X" and "what changed in X since Y", each judged against the shared prettier dataset
 * by id. It holds ids, grades and short questions, never dataset text. See README.md in this folder.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CorpusItem, Query } from '../dataset.js';

export const QUESTION_KINDS = ['bug', 'people', 'howto', 'change'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

export interface JudgedPerson {
  /** The GitHub login the dataset records as the author of the area's changes. */
  login: string;
  /** 2: authored a quarter or more of the area's changes; 1: a regular contributor to it. */
  grade: number;
}

export interface Question {
  id: string;
  kind: QuestionKind;
  question: string;
  /** Judged pull requests (dataset ids) with graded relevance; their commits count as the same target. */
  relevant: { id: string; grade: number }[];
  /** People questions: who changed the area the question names. */
  people?: JudgedPerson[];
  /** How a people or change question's judgements were derived: a regex over changed paths (and titles). */
  area?: { paths: string; title?: string };
  /** Change questions: the merge-date window, `until` exclusive. */
  window?: { since: string; until?: string };
}

export const DEFAULT_QUESTIONS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'questions.json');

/** Share of each kind held out as the test split. */
export const QUESTION_TEST_FRACTION = 0.3;

/**
 * The fixed split: a question is held out when the hash of its id falls below 0.3. The `questions:` salt
 * keeps it independent of the release-note split (`splitOf` in dataset.ts). Tuning reads `dev` only.
 */
export function questionSplitOf(id: string): 'dev' | 'test' {
  const unit = createHash('sha256').update(`questions:${id}`).digest().readUInt32BE(0) / 2 ** 32;
  return unit < QUESTION_TEST_FRACTION ? 'test' : 'dev';
}

export type QuestionSplit = 'dev' | 'test' | 'all';

export function splitQuestions(questions: readonly Question[], split: QuestionSplit): Question[] {
  return split === 'all' ? [...questions] : questions.filter((q) => questionSplitOf(q.id) === split);
}

/** Reads and checks the set: known kinds, unique ids, grades 1-2, judged people on people questions. */
export async function loadQuestions(file = DEFAULT_QUESTIONS_FILE): Promise<Question[]> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as { questions?: unknown };
  if (!Array.isArray(parsed.questions)) throw new Error(`${file}: expected { "questions": [...] }`);
  const questions = parsed.questions as Question[];
  const seen = new Set<string>();
  for (const q of questions) {
    if (seen.has(q.id)) throw new Error(`${file}: duplicate question id ${q.id}`);
    seen.add(q.id);
    if (!QUESTION_KINDS.includes(q.kind)) throw new Error(`${file}: ${q.id} has unknown kind ${String(q.kind)}`);
    if (typeof q.question !== 'string' || q.question.trim() === '') throw new Error(`${file}: ${q.id} has no question text`);
    if (!Array.isArray(q.relevant) || q.relevant.length === 0) throw new Error(`${file}: ${q.id} judges no item`);
    if (q.relevant.some((r) => !/^pull_request:\d+$/.test(r.id) || ![1, 2].includes(r.grade))) throw new Error(`${file}: ${q.id} has a judgement that is not a pull request id with grade 1 or 2`);
    if (q.kind === 'people' && (q.people ?? []).length === 0) throw new Error(`${file}: people question ${q.id} judges nobody`);
  }
  return questions;
}

/**
 * A question as the harness's `Query`: the judged pull requests, with every corpus commit that belongs to
 * one of them (squash merge, branch commits) as part of the same target. Throws when a judged id is not in
 * the corpus, so a stale set fails loudly instead of scoring zero.
 */
export function asQuery(question: Question, corpusIds: ReadonlySet<string>, commitsByPullRequest: ReadonlyMap<string, readonly string[]>): Query {
  const missing = question.relevant.filter((r) => !corpusIds.has(r.id));
  if (missing.length > 0) throw new Error(`${question.id} judges items that are not in the corpus: ${missing.map((r) => r.id).join(', ')}`);
  return {
    id: question.id,
    query: question.question,
    relevant: question.relevant.map((r) => ({ id: r.id, type: 'pull_request', number: Number(r.id.split(':')[1]), grade: r.grade })),
    relevant_commits: [...new Set(question.relevant.flatMap((r) => commitsByPullRequest.get(r.id) ?? []))],
    context: null,
    ambiguous_with: [],
  };
}

/** pull request id -> its commits present in the corpus, inverted from `pullRequestsByCommit`. */
export function commitsByPullRequest(corpus: readonly CorpusItem[], byCommit: ReadonlyMap<string, ReadonlySet<string>>): Map<string, string[]> {
  const present = new Set(corpus.map((item) => item.id));
  const out = new Map<string, string[]>();
  for (const [commitId, prs] of byCommit) {
    if (!present.has(commitId)) continue;
    for (const prId of prs) out.set(prId, [...(out.get(prId) ?? []), commitId]);
  }
  return out;
}

