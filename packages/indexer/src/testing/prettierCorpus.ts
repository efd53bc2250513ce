import { existsSync, readFileSync } from 'node:fs';
import type { EntityInput } from '../entities/types.js';

/**
 * Test-only reader for the real GitHub export in ../shared/data/github-prettier (REST-shaped
 * pull requests and commits). In @engram/indexer/testing, never the production barrel; tests skip when the data is absent.
 */

export const PRETTIER_DATA = new URL('../../../../../shared/data/github-prettier', import.meta.url).pathname;
export const hasPrettierData = (): boolean => existsSync(`${PRETTIER_DATA}/corpus.json`);

interface RestFile { filename: string }
export interface RestItem {
  type: 'pull_request' | 'commit';
  id: string;
  number?: number;
  title?: string;
  body?: string | null;
  sha?: string;
  user?: { login?: string };
  author?: { login?: string } | null;
  labels?: ({ name: string } | string)[];
  files: RestFile[];
  commit_shas?: string[];
  commit?: { message: string; author: { name: string } };
}

export interface Link {
  type: string;
  source: string;
  target: string;
  evidence?: string;
}

export const readJson = <T>(name: string): T => JSON.parse(readFileSync(`${PRETTIER_DATA}/${name}`, 'utf8')) as T;

/** Title (commit subject) and body as a connector would normalise them. */
export function titleAndBody(item: RestItem): { title: string; body: string } {
  if (item.type === 'pull_request') return { title: item.title ?? '', body: item.body ?? '' };
  const message = item.commit?.message ?? '';
  const end = message.indexOf('\n');
  return end === -1 ? { title: message, body: '' } : { title: message.slice(0, end), body: message.slice(end + 1).trim() };
}

export function toEntityInput(item: RestItem): EntityInput {
  const { title, body } = titleAndBody(item);
  const files = item.files.map((f) => f.filename);
  const base = { source: 'github' as const, title, body, files, container: 'prettier/prettier', metadata: {} };
  if (item.type === 'pull_request') {
    return {
      ...base,
      type: 'pull_request',
      labels: (item.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)),
      actors: item.user?.login ? [{ role: 'author', provider: 'github', login: item.user.login }] : [],
      keys: [`pr:prettier/prettier#${item.number}`],
      refs: (item.commit_shas ?? []).map((sha) => ({ key: `commit:${sha}`, relation: 'contains', confidence: 1 })),
    };
  }
  const login = item.author?.login;
  return {
    ...base,
    type: 'commit',
    labels: [],
    actors: [login ? { role: 'author', provider: 'github', login } : { role: 'author', provider: 'github', name: item.commit?.author.name ?? 'unknown' }],
    keys: [`commit:${item.sha}`],
    refs: [],
  };
}
