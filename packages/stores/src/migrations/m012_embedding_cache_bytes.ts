/**
 * The embedding cache holds each vector as big-endian float4 bytes (`float4Bytes`) instead of a JSON array:
 * a jsonb array of 512 numbers was parsed into 512 `numeric` values on every write, ~1 ms a vector on the
 * embedded database (a sixth of its time writing an import's embeddings at 100k items), and formatted back
 * on every read. Existing rows are converted in place.
 */
export const m012EmbeddingCacheBytes = `
ALTER TABLE embedding_cache ADD COLUMN vector_bytes bytea;
UPDATE embedding_cache SET vector_bytes = (SELECT string_agg(float4send(e::float4), ''::bytea ORDER BY o) FROM jsonb_array_elements_text(vector) WITH ORDINALITY AS t(e, o));
DELETE FROM embedding_cache WHERE vector_bytes IS NULL;
ALTER TABLE embedding_cache DROP COLUMN vector;
ALTER TABLE embedding_cache RENAME COLUMN vector_bytes TO vector;
ALTER TABLE embedding_cache ALTER COLUMN vector SET NOT NULL;
`;
