/**
 * Actors whose expertise is out of date: the indexer marks them in the transaction that writes their
 * items, and one paced `actors.expertise` pass per workspace recomputes them and clears the marks it
 * read. Before this, every indexed item enqueued a pass for its own actors, so an import of 10k items
 * ran hundreds of passes that each read the top authors' whole history again. `stamp` grows on every
 * mark, so a pass clears only marks no newer write has renewed.
 */
export const m008ExpertiseStale = `
CREATE SEQUENCE IF NOT EXISTS actor_expertise_stamp;
CREATE TABLE IF NOT EXISTS actor_expertise_stale (
  actor_id text PRIMARY KEY REFERENCES actors(id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  stamp bigint NOT NULL DEFAULT nextval('actor_expertise_stamp')
);
CREATE INDEX IF NOT EXISTS actor_expertise_stale_workspace ON actor_expertise_stale (workspace_id, stamp);
`;
