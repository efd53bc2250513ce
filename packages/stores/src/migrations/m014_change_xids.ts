/**
 * The items' change feed records which transaction wrote each change (`change_xid`), so a reader in
 * another process can follow it on a Postgres server where writers commit concurrently: a change
 * numbered below one it has already seen is still found once its transaction commits (`changeFeed.ts`).
 * Indexed, because a reader asks for the changes of the transactions it last saw in progress.
 */
export const m014ChangeXids = `
ALTER TABLE items ADD COLUMN change_xid xid8;
CREATE INDEX items_change_xid ON items (change_xid, change_seq);
ALTER TABLE item_tombstones ADD COLUMN change_xid xid8 DEFAULT pg_current_xact_id();
CREATE INDEX item_tombstones_change_xid ON item_tombstones (change_xid, change_seq);
CREATE OR REPLACE FUNCTION item_change_stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.change_seq := nextval('item_change_seq'); NEW.change_xid := pg_current_xact_id(); RETURN NEW; END $$;
`;
