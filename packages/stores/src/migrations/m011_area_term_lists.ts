/**
 * The area model's term counts as one row per term (its areas and counts as two arrays) instead of one
 * row per (term, area) pair: 571k rows at 30k items and 801 MB at 100k, all written anew by every
 * re-cluster, most of whose time went to inserting them and deleting the replaced generation's. A search
 * reads the model by term, so a term's row holds what it reads.
 */
export const m011AreaTermLists = `
CREATE TABLE area_term_lists (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  generation bigint NOT NULL,
  term text NOT NULL,
  areas text[] NOT NULL,
  changes integer[] NOT NULL,
  PRIMARY KEY (workspace_id, generation, term)
);
INSERT INTO area_term_lists (workspace_id, generation, term, areas, changes)
  SELECT workspace_id, generation, term, array_agg(area ORDER BY area), array_agg(changes ORDER BY area)
  FROM area_terms GROUP BY workspace_id, generation, term;
DROP TABLE area_terms;
`;
