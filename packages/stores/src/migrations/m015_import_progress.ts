/**
 * An import's progress as counts on its row, kept by triggers in the statements that link its events and
 * mark them, instead of counted on every read: `engram import --wait` polls the progress, and counting
 * joined the import's events with `source_events` (whose rows hold each event's JSON), which PostgreSQL did
 * by reading the whole table. At 100k items one read of an import of 12,356 events took 160 ms on the
 * embedded database, and the benchmark's eight imports polled every 2 s held its one connection a third
 * of the time and more as the table grew.
 *
 * Linking counts each newly linked event by its status; marking moves each changed event between
 * pending, settled (indexed or skipped) and failed in every import it belongs to. A link reads the
 * statuses under a share lock (on a Postgres server, a mark of the same event in flight commits first,
 * so neither statement misses the other). A mark locks its imports' rows in id order before moving their
 * counts: on a server, two workers marking events of the same imports would otherwise lock them in
 * whatever order their joins produced, and could deadlock. Events leave `source_events` only with their
 * workspace, and its imports with it. (Statements end where a line ends with a semicolon: a function's end shares its line.)
 */
export const m015ImportProgress = `
ALTER TABLE imports ADD COLUMN events integer NOT NULL DEFAULT 0;
ALTER TABLE imports ADD COLUMN settled integer NOT NULL DEFAULT 0;
ALTER TABLE imports ADD COLUMN failed integer NOT NULL DEFAULT 0;
CREATE INDEX import_events_event ON import_events (event_id);
UPDATE imports i SET events = c.events, settled = c.settled, failed = c.failed
FROM (
  SELECT ie.import_id, count(*)::int AS events,
         (count(*) FILTER (WHERE e.status IN ('indexed', 'skipped')))::int AS settled,
         (count(*) FILTER (WHERE e.status = 'failed'))::int AS failed
  FROM import_events ie JOIN source_events e ON e.id = ie.event_id
  GROUP BY ie.import_id
) c
WHERE i.id = c.import_id;
CREATE FUNCTION import_events_linked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE imports i SET events = i.events + c.events, settled = i.settled + c.settled, failed = i.failed + c.failed
  FROM (
    SELECT l.import_id, count(*)::int AS events,
           (count(*) FILTER (WHERE e.status IN ('indexed', 'skipped')))::int AS settled,
           (count(*) FILTER (WHERE e.status = 'failed'))::int AS failed
    FROM linked l
    JOIN (SELECT s.id, s.status FROM source_events s WHERE s.id IN (SELECT event_id FROM linked) ORDER BY s.id FOR SHARE) e ON e.id = l.event_id
    GROUP BY l.import_id
  ) c
  WHERE i.id = c.import_id; RETURN NULL; END $$;
CREATE TRIGGER import_events_linked AFTER INSERT ON import_events REFERENCING NEW TABLE AS linked FOR EACH STATEMENT EXECUTE FUNCTION import_events_linked();
CREATE FUNCTION source_events_marked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM imports WHERE id IN (SELECT ie.import_id FROM marked_after a JOIN import_events ie ON ie.event_id = a.id) ORDER BY id FOR UPDATE; UPDATE imports i
  SET settled = i.settled + c.settled, failed = i.failed + c.failed
  FROM (
    SELECT ie.import_id,
           sum((a.status IN ('indexed', 'skipped'))::int - (b.status IN ('indexed', 'skipped'))::int)::int AS settled,
           sum((a.status = 'failed')::int - (b.status = 'failed')::int)::int AS failed
    FROM marked_after a JOIN marked_before b ON b.id = a.id JOIN import_events ie ON ie.event_id = a.id
    WHERE a.status IS DISTINCT FROM b.status
    GROUP BY ie.import_id
  ) c
  WHERE i.id = c.import_id; RETURN NULL; END $$;
CREATE TRIGGER source_events_marked AFTER UPDATE ON source_events REFERENCING OLD TABLE AS marked_before NEW TABLE AS marked_after FOR EACH STATEMENT EXECUTE FUNCTION source_events_marked();
`;
