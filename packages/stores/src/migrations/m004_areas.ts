/**
 * The area model: for each file path and directory of a workspace's changes, how many changes touched it
 * and how many of those have each title term. Rebuilt wholesale per workspace by the recluster job
 * (`rebuildAreaModel` in @engram/indexer); the search service reads it to score how well a question
 * fits the part of the tree a candidate changed. The area `''` is the whole workspace.
 */
export const m004Areas = `
CREATE TABLE areas (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  area text NOT NULL,
  changes integer NOT NULL,
  -- When the model was rebuilt: readers that cache it compare the root row's value.
  built_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, area)
);
CREATE TABLE area_terms (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  term text NOT NULL,
  area text NOT NULL,
  changes integer NOT NULL,
  PRIMARY KEY (workspace_id, term, area)
);
`;
