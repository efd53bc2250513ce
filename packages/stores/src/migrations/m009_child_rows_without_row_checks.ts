/**
 * An item's postings and entity mentions (tens of rows each) are written in bulk by the indexer, and a
 * foreign key checks every row it inserts against its parent, one lookup a row: on PGlite that was 3-5x
 * the cost of inserting the mentions themselves (32 items' 633 mentions: 28-49 ms with the checks, 6-7
 * without), the largest statements of an import. The indexer writes these rows in the transaction that
 * upserts (and locks) their item and entities, so the insert-time check proves nothing. What the foreign
 * keys also did, deleting the rows with their parent, is kept by one statement-level trigger per parent.
 */
export const m009ChildRowsWithoutRowChecks = `
ALTER TABLE entity_mentions DROP CONSTRAINT IF EXISTS entity_mentions_entity_id_fkey;
ALTER TABLE entity_mentions DROP CONSTRAINT IF EXISTS entity_mentions_item_id_fkey;
ALTER TABLE postings DROP CONSTRAINT IF EXISTS postings_item_id_fkey;
CREATE FUNCTION item_children_gone() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM entity_mentions m USING gone g WHERE m.item_id = g.id; DELETE FROM postings p USING gone g WHERE p.item_id = g.id; RETURN NULL; END $$;
CREATE TRIGGER items_children_gone AFTER DELETE ON items REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION item_children_gone();
CREATE FUNCTION entity_mentions_gone() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM entity_mentions m USING gone g WHERE m.entity_id = g.id; RETURN NULL; END $$;
CREATE TRIGGER entities_mentions_gone AFTER DELETE ON entities REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION entity_mentions_gone();
`;
