/**
 * A change feed over items, for read models held in memory beside the database (the embedded search
 * mirror): every insert or update of an item takes the next `change_seq`, every delete leaves a
 * tombstone with one. A reader keeps the highest number it has applied and asks for what came after.
 * Triggers, not application code, so every writer (single or batched upserts, deletes that cascade
 * from a workspace or connection) is covered. An update that changes nothing a search reads (the
 * embedding hash, the indexing time) takes no number, so a reader does not re-read it.
 */
export const m005ItemChanges = `
CREATE SEQUENCE item_change_seq;
ALTER TABLE items ADD COLUMN change_seq bigint;
UPDATE items SET change_seq = nextval('item_change_seq');
CREATE INDEX items_change_seq ON items (change_seq);
CREATE TABLE item_tombstones (
  change_seq bigint PRIMARY KEY DEFAULT nextval('item_change_seq'),
  workspace_id text NOT NULL,
  item_id text NOT NULL
);
CREATE FUNCTION item_change_stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.change_seq := nextval('item_change_seq'); RETURN NEW; END $$;
CREATE FUNCTION item_change_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO item_tombstones (workspace_id, item_id) VALUES (OLD.workspace_id, OLD.id); RETURN OLD; END $$;
CREATE TRIGGER items_change_stamp_insert BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION item_change_stamp();
CREATE TRIGGER items_change_stamp_update BEFORE UPDATE ON items FOR EACH ROW WHEN (OLD.content_hash IS DISTINCT FROM NEW.content_hash OR OLD.search_vector IS DISTINCT FROM NEW.search_vector OR OLD.lexical_length IS DISTINCT FROM NEW.lexical_length OR OLD.type IS DISTINCT FROM NEW.type OR OLD.source IS DISTINCT FROM NEW.source OR OLD.occurred_at IS DISTINCT FROM NEW.occurred_at OR OLD.actor_names IS DISTINCT FROM NEW.actor_names OR OLD.title IS DISTINCT FROM NEW.title OR OLD.files IS DISTINCT FROM NEW.files) EXECUTE FUNCTION item_change_stamp();
CREATE TRIGGER items_change_tombstone AFTER DELETE ON items FOR EACH ROW EXECUTE FUNCTION item_change_tombstone();
`;
