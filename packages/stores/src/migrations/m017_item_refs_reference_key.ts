/**
 * An index of the references alone (rows other than identity keys) by key. Linking a batch reads who
 * refers to each new item's own keys (`findKeyRows`), and those keys include its title: a title like
 * "chore(deps): update eslint related dependencies" is the identity key of 851 items at 100k, all of
 * whose rows the index of every row (`item_refs_key`) had the database fetch from the table only to drop
 * them as identity rows: for 34 items, 1,169 rows in 636 table pages to return 33. References are about a
 * third of the rows (mostly a squash commit's `merged_as`).
 */
export const m017ItemRefsReferenceKey = `
CREATE INDEX item_refs_reference_key ON item_refs (workspace_id, key) WHERE relation <> 'key';
`;
