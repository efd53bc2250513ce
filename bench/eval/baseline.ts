/**
 * The lexical baseline as systems the harness can run: BM25 over every item (pull requests and
 * commits, as Engram indexes them) and the variant without the squash commits of corpus PRs.
 */
import { createBm25Index, type Bm25Index } from './bm25.js';
import { itemText, squashCommitIds, type CorpusItem } from './dataset.js';
import type { FindSimilar } from './findsimilar.js';
import type { SearchSystem } from './run.js';
import type { Tokenizer } from './tokenizer.js';

export interface LexicalBaseline {
  index: Bm25Index;
  search: SearchSystem;
  /** findsimilar by lexical overlap: the item's own text as the query, the item left out. */
  findSimilar: FindSimilar;
}

export interface LexicalOptions {
  withoutSquashCommits?: boolean;
  /** The text indexed for an item (default: title + body, or the commit message). */
  text?: (item: CorpusItem) => string;
}

export function lexicalBaseline(corpus: readonly CorpusItem[], tokenize: Tokenizer, options: LexicalOptions = {}): LexicalBaseline {
  const { withoutSquashCommits = false, text = itemText } = options;
  const squash = withoutSquashCommits ? squashCommitIds([...corpus]) : new Set<string>();
  const items = corpus.filter((item) => !squash.has(item.id));
  const index = createBm25Index(
    items.map((item) => ({ id: item.id, text: text(item) })),
    tokenize,
  );
  const byId = new Map(corpus.map((item) => [item.id, item]));
  return {
    index,
    search: async (query, limit) => ({ ids: index.search(query, limit).map((hit) => hit.id) }),
    findSimilar: async (id) => {
      const item = byId.get(id);
      if (!item) return [];
      return index
        .search(text(item), 11)
        .map((hit) => hit.id)
        .filter((other) => other !== id);
    },
  };
}
