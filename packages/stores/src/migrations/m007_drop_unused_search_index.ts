/**
 * Drops the GIN index over `items.search_vector`. Full-text search reads the `postings` table (BM25F,
 * migration 003) or its in-memory mirror, never `search_vector @@ query`, so the index only cost every
 * item write a GIN insertion (about a tenth of indexing time on PGlite). The column stays: postings are
 * built from it and re-indexing compares terms with it.
 */
export const m007DropUnusedSearchIndex = `
DROP INDEX IF EXISTS items_search;
`;
