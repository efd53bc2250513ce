/** The approximate graphs' settings (`graph.ts`), read by the scan thread that holds them. */

/** Links a node keeps per layer (HNSW's M). */
export const GRAPH_CONNECTIVITY = 16;
/**
 * Candidates kept while linking a new node (efConstruction). On bag-of-words vectors of the 100k benchmark
 * corpus (512 dims, int8), 64 built the graph in 19 s on one core and found 0.87 of the exact 300 nearest
 * (0.95 of the nearest 50) against 0.88 (0.96) for 128.
 */
export const GRAPH_EXPANSION_ADD = 64;
/** Candidates kept while searching (ef); usearch searches with at least the count asked for. */
export const GRAPH_EXPANSION_SEARCH = 64;
