/**
 * Scoring "who knows about X": Engram answers with `context.relevantActors` (display names); the set
 * judges GitHub logins. A person is matched through every name the corpus records for a login (the login
 * itself and the commit author names of that login's commits), compared without case, accents or
 * punctuation. The lexical stand-in names the authors of BM25's top results.
 */
import type { CorpusItem } from '../dataset.js';

/** `Loïc Fürhoff` -> `loicfurhoff`, `fisker-cheung` -> `fiskercheung`. */
export function normalizeName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

export function authorLogin(item: CorpusItem): string | undefined {
  const login = item.type === 'pull_request' ? (item as { user?: { login?: string } }).user?.login : (item as { author?: { login?: string } | null }).author?.login;
  return login ?? undefined;
}

/** Maps a display name to the logins it can stand for. */
export interface PersonIndex {
  loginsOf(displayName: string): string[];
}

export function personIndex(corpus: readonly CorpusItem[]): PersonIndex {
  const byName = new Map<string, Set<string>>();
  const add = (name: string | undefined, login: string): void => {
    const key = name ? normalizeName(name) : '';
    if (key === '') return;
    const logins = byName.get(key) ?? new Set<string>();
    logins.add(login);
    byName.set(key, logins);
  };
  for (const item of corpus) {
    const login = authorLogin(item);
    if (!login) continue;
    add(login, login);
    if (item.type === 'commit') add(item.commit.author.name, login);
  }
  return { loginsOf: (displayName) => [...(byName.get(normalizeName(displayName)) ?? [])] };
}

/** 1 when one of the first k people (each a list of logins it may stand for) is a judged login, else 0. */
export function personHitAt(people: readonly (readonly string[])[], judged: readonly string[], k: number): number {
  const wanted = new Set(judged);
  return people.slice(0, k).some((logins) => logins.some((login) => wanted.has(login))) ? 1 : 0;
}

/**
 * The lexical stand-in for people: the authors of the top `depth` results, each weighted by the
 * reciprocal rank of the results they wrote, best first. Bots never count as people who know something.
 */
export function authorsOfResults(resultIds: readonly string[], authorOf: (id: string) => string | undefined, depth = 10): string[] {
  const weight = new Map<string, number>();
  resultIds.slice(0, depth).forEach((id, rank) => {
    const login = authorOf(id);
    if (!login || /\[bot\]$/i.test(login)) return;
    weight.set(login, (weight.get(login) ?? 0) + 1 / (rank + 1));
  });
  return [...weight].sort((a, b) => b[1] - a[1]).map(([login]) => login);
}
