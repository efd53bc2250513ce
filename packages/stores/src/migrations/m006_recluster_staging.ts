/**
 * Re-clustering and the area model without long transactions (the embedded database answers one query
 * at a time, so a long write transaction stalls every search behind it).
 *
 * - `cluster_stage` / `cluster_member_stage`: a re-cluster writes its result here in small slices,
 *   keyed by its run id, then moves it into `clusters` / `cluster_members` in one short transaction.
 * - The area model is built as a new generation beside the live one and published by flipping
 *   `area_models.generation`; readers read the published generation only, so they see the old model or
 *   the new one, never half of one. Generations come from a sequence, so a slower, older build never
 *   replaces a newer one. Rows of other generations are pruned in small slices after a publish.
 */
export const m006ReclusterStaging = `
CREATE TABLE cluster_stage (
  run_id text NOT NULL,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  id text NOT NULL,
  topic text,
  summary text,
  keywords text[] NOT NULL DEFAULT '{}',
  centroid jsonb,
  staged_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, id)
);
CREATE INDEX cluster_stage_workspace ON cluster_stage (workspace_id);
CREATE TABLE cluster_member_stage (
  run_id text NOT NULL,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  item_id text NOT NULL,
  cluster_id text NOT NULL,
  similarity real NOT NULL,
  PRIMARY KEY (run_id, item_id)
);
CREATE SEQUENCE area_model_generation;
CREATE TABLE area_models (
  workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  generation bigint NOT NULL,
  changes integer NOT NULL,
  built_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE areas ADD COLUMN generation bigint NOT NULL DEFAULT 0;
ALTER TABLE area_terms ADD COLUMN generation bigint NOT NULL DEFAULT 0;
ALTER TABLE areas DROP CONSTRAINT areas_pkey;
ALTER TABLE areas ADD PRIMARY KEY (workspace_id, generation, area);
ALTER TABLE area_terms DROP CONSTRAINT area_terms_pkey;
ALTER TABLE area_terms ADD PRIMARY KEY (workspace_id, generation, term, area);
INSERT INTO area_models (workspace_id, generation, changes, built_at) SELECT workspace_id, 0, changes, built_at FROM areas WHERE area = ''
`;
