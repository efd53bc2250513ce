/**
 * Cluster centroids as big-endian float4 bytes (`float4Bytes`), as the embedding cache holds its vectors
 * (m012), instead of JSON arrays: every assignment rewrote a cluster's centroid, and on the embedded
 * database parsing 512 numbers into `numeric` jsonb values and formatting them back on reads was 8-17 s of
 * a 30k-item import's 211 s of statements. Existing centroids (rounded to 5 decimals) convert exactly.
 */
const toBytes = (column: string) => `(SELECT string_agg(float4send(e::float4), ''::bytea ORDER BY o) FROM jsonb_array_elements_text(${column}) WITH ORDINALITY AS t(e, o))`;

export const m013CentroidBytes = `
ALTER TABLE clusters ADD COLUMN centroid_bytes bytea;
UPDATE clusters SET centroid_bytes = ${toBytes('centroid')} WHERE jsonb_typeof(centroid) = 'array';
ALTER TABLE clusters DROP COLUMN centroid;
ALTER TABLE clusters RENAME COLUMN centroid_bytes TO centroid;
ALTER TABLE cluster_stage ADD COLUMN centroid_bytes bytea;
UPDATE cluster_stage SET centroid_bytes = ${toBytes('centroid')} WHERE jsonb_typeof(centroid) = 'array';
ALTER TABLE cluster_stage DROP COLUMN centroid;
ALTER TABLE cluster_stage RENAME COLUMN centroid_bytes TO centroid;
`;
