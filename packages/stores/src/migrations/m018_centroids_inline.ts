/**
 * Keeps a cluster's row, centroid included, in the table's own page. A centroid is 2 KB of float4 at 512
 * dimensions (3 KB at 768), past the 2 KB at which PostgreSQL moves a row's largest values to the TOAST
 * table, so every placement's update of a cluster also wrote its centroid there as new chunks with their
 * index entries: an import updates a batch's ~70 clusters in one statement, 40 times per 4,000 items. With
 * rows kept whole up to a page (8,160 bytes), that update took 11-14 ms instead of 23-25 ms on a copy of
 * the 100k-item index (`bench/results/scale-2026-12-02-s51-account.md`). Rows written before this keep
 * their chunks until their next update.
 */
export const m018CentroidsInline = `
ALTER TABLE clusters SET (toast_tuple_target = 8160);
ALTER TABLE cluster_stage SET (toast_tuple_target = 8160);
`;
