/**
 * The embedded database stops keeping postings (`engram.postings = off`, see `POSTINGS_KEPT`): an index
 * built before this empties the table, which would otherwise go stale under later writes and hold its
 * space (626 MB at 100k items). On a Postgres server the setting is unset and nothing changes.
 */
export const m010EmbeddedPostings = `
DO $$ BEGIN IF current_setting('engram.postings', true) = 'off' THEN TRUNCATE postings; END IF; END $$;
`;
