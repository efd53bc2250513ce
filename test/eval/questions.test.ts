import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDataset, pullRequestsByCommit, type CorpusItem } from '../../bench/eval/dataset.js';
import { judgementOf, scoreQuery } from '../../bench/eval/metrics.js';
import { authorLogin, authorsOfResults, normalizeName, personHitAt, personIndex } from '../../bench/eval/questions/people.js';
import { asQuery, commitsByPullRequest, loadQuestions, questionSplitOf, splitQuestions, QUESTION_KINDS } from '../../bench/eval/questions/set.js';

const DATA = new URL('../../../shared/data/github-prettier', import.meta.url).pathname;

const pr = (number: number, login: string, shas: string[] = []): CorpusItem =>
  ({ type: 'pull_request', id: `pull_request:${number}`, number, html_url: '', title: '', body: null, merge_commit_sha: shas[0] ?? null, commit_shas: shas, merged_at: null, created_at: '', user: { login } }) as CorpusItem;
const commit = (sha: string, login: string, name: string): CorpusItem =>
  ({ type: 'commit', id: `commit:${sha}`, sha, html_url: '', commit: { message: 'm', author: { name, date: '' } }, author: { login } }) as CorpusItem;

describe('people scoring', () => {
  const corpus = [pr(1, 'fisker-cheung', ['aa']), commit('aa', 'fisker-cheung', 'fisker Cheung'), pr(2, 'loic', []), commit('bb', 'loic', 'Loïc Fürhoff'), pr(3, 'renovate[bot]')];

  it('matches a display name to a login through every name the corpus records for it', () => {
    const people = personIndex(corpus);
    expect(normalizeName('Loïc Fürhoff')).toBe('loicfurhoff');
    expect(people.loginsOf('Fisker Cheung')).toEqual(['fisker-cheung']);
    expect(people.loginsOf('fisker-cheung')).toEqual(['fisker-cheung']);
    expect(people.loginsOf('loic furhoff')).toEqual(['loic']);
    expect(people.loginsOf('Somebody Else')).toEqual([]);
  });

  it('counts a judged person only within the first k named', () => {
    const named = [['a'], [], ['b', 'c'], ['d']];
    expect(personHitAt(named, ['c'], 3)).toBe(1);
    expect(personHitAt(named, ['c'], 2)).toBe(0);
    expect(personHitAt(named, ['d'], 3)).toBe(0);
    expect(personHitAt([], ['a'], 3)).toBe(0);
  });

  it('ranks the authors of the lexical results by reciprocal rank and leaves bots out', () => {
    const authors = new Map(corpus.map((item) => [item.id, authorLogin(item)]));
    const ids = ['pull_request:3', 'pull_request:2', 'commit:aa', 'pull_request:1'];
    // loic: 1/2; fisker-cheung: 1/3 + 1/4.
    expect(authorsOfResults(ids, (id) => authors.get(id))).toEqual(['fisker-cheung', 'loic']);
    expect(authorsOfResults(ids, (id) => authors.get(id), 2)).toEqual(['loic']);
  });
});

describe('question set', () => {
  it('judges a PR and its commits as one target', () => {
    const corpus = [pr(1, 'x', ['aa', 'bb']), commit('aa', 'x', 'X'), commit('bb', 'x', 'X'), pr(2, 'y')];
    const byCommit = pullRequestsByCommit(corpus, []);
    const query = asQuery({ id: 'bug-1', kind: 'bug', question: 'q', relevant: [{ id: 'pull_request:1', grade: 2 }] }, new Set(corpus.map((c) => c.id)), commitsByPullRequest(corpus, byCommit));
    const judgement = judgementOf(query, byCommit);
    expect(scoreQuery(['commit:bb', 'pull_request:1'], judgement).ndcg10).toBe(1);
    expect(scoreQuery(['pull_request:2', 'commit:aa'], judgement).recall10).toBe(1);
    expect(() => asQuery({ id: 'bug-2', kind: 'bug', question: 'q', relevant: [{ id: 'pull_request:9', grade: 1 }] }, new Set(), new Map())).toThrow(/not in the corpus: pull_request:9/);
  });

  it('refuses a malformed set with the reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'questions-'));
    const file = join(dir, 'q.json');
    await writeFile(file, JSON.stringify({ questions: [{ id: 'p-1', kind: 'people', question: 'who', relevant: [{ id: 'pull_request:1', grade: 1 }] }] }));
    await expect(loadQuestions(file)).rejects.toThrow(/judges nobody/);
    await writeFile(file, JSON.stringify({ questions: [{ id: 'b-1', kind: 'bug', question: 'x', relevant: [{ id: 'pull_request:1', grade: 3 }] }] }));
    await expect(loadQuestions(file)).rejects.toThrow(/grade 1 or 2/);
  });

  it('holds out a fixed part of every kind by id hash', async () => {
    const questions = await loadQuestions();
    expect(questions.length).toBeGreaterThanOrEqual(150);
    const test = splitQuestions(questions, 'test');
    expect(test.length + splitQuestions(questions, 'dev').length).toBe(questions.length);
    for (const kind of QUESTION_KINDS) {
      const ofKind = questions.filter((q) => q.kind === kind);
      expect(ofKind.length).toBeGreaterThan(30);
      expect(test.filter((q) => q.kind === kind).length).toBeGreaterThanOrEqual(5);
    }
    expect(questionSplitOf('bug-01')).toBe(questionSplitOf('bug-01'));
  });

  it.skipIf(!existsSync(DATA))('judges only items and people the dataset holds (skipped: ../shared/data/github-prettier is absent)', async () => {
    const dataset = await loadDataset(DATA);
    const ids = new Set(dataset.corpus.map((item) => item.id));
    const logins = new Set(dataset.corpus.flatMap((item) => authorLogin(item) ?? []));
    const byCommit = pullRequestsByCommit(dataset.corpus, dataset.links);
    const commits = commitsByPullRequest(dataset.corpus, byCommit);
    for (const q of await loadQuestions()) {
      expect(() => asQuery(q, ids, commits)).not.toThrow();
      for (const person of q.people ?? []) expect(logins.has(person.login)).toBe(true);
    }
  });
});
