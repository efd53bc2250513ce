/**
 * The lexical path's inverted index: one row per (item, term) with the term's positions and field weights,
 * derived from `items.search_vector` whenever that is written. Reading a query's postings by term costs a
 * few milliseconds; unnesting each candidate's whole tsvector cost ~30 ms a query on PGlite, and the GIN
 * index only found candidates for a proxy ranking (`ts_rank`) before exact BM25F. Filled here from the
 * stored vectors, so an existing index keeps answering without re-tokenizing.
 */
export const m003Postings = `
CREATE TABLE postings (
  workspace_id text NOT NULL,
  term text NOT NULL,
  item_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  dl integer NOT NULL,
  positions smallint[] NOT NULL,
  weights text[] NOT NULL,
  PRIMARY KEY (workspace_id, term, item_id)
);
CREATE INDEX postings_item ON postings (item_id);
INSERT INTO postings (workspace_id, term, item_id, dl, positions, weights)
  SELECT i.workspace_id, u.lexeme, i.id, i.lexical_length, u.positions, u.weights
  FROM items i, unnest(i.search_vector) AS u(lexeme, positions, weights)
  WHERE i.search_vector IS NOT NULL;
DROP INDEX IF EXISTS items_search;
`;
