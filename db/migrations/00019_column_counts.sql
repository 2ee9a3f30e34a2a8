-- +goose Up
-- Locks: adds columns to cards and fills them for every card (UPDATE), then builds an index on cards
-- without CONCURRENTLY: writes to cards wait until it commits.
-- The portfolios (projects portfolio and pilotage portfolio) read per-column figures. Counting them from
-- the cards is a pass over every card of the workspace (about 45 ms for 50,000 cards), so they are kept
-- as counters instead, by statement-level triggers on cards, on every path that writes cards (requests,
-- imports, cascades). See docs/pilotage.md "Portfolio counters".
--
-- A card carries its own checklist totals (refreshed with its other parts), so a column's checklist
-- figures move with the card when it moves, is archived or is deleted, whatever order cascades run in.
ALTER TABLE cards
    ADD COLUMN checklist_total integer NOT NULL DEFAULT 0,
    ADD COLUMN checklist_done  integer NOT NULL DEFAULT 0;
UPDATE cards c SET checklist_total = i.total, checklist_done = i.done
FROM (SELECT card_id, count(*) AS total, count(*) FILTER (WHERE done) AS done FROM checklist_items GROUP BY card_id) i
WHERE i.card_id = c.id;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION refresh_card_parts(card_ids uuid[]) RETURNS void LANGUAGE sql AS $$
    UPDATE cards c SET
        parts_checklist = coalesce((SELECT json_agg(json_build_object('_id', i.id, 'id', i.id, 'title', i.title, 'done', i.done,
                                                                      'order', i.position) ORDER BY i.position, i.id)
                                    FROM checklist_items i WHERE i.card_id = c.id), '[]'),
        parts_progress = coalesce((SELECT (100 * count(*) FILTER (WHERE i.done) / nullif(count(*), 0))::int
                                   FROM checklist_items i WHERE i.card_id = c.id), 0),
        checklist_total = (SELECT count(*) FROM checklist_items i WHERE i.card_id = c.id),
        checklist_done = (SELECT count(*) FILTER (WHERE i.done) FROM checklist_items i WHERE i.card_id = c.id),
        parts_labels = coalesce((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color) ORDER BY l.name, l.id)
                                 FROM card_labels x JOIN labels l ON l.id = x.label_id WHERE x.card_id = c.id), '[]'),
        parts_fields = coalesce((SELECT json_object_agg(v.field_id, v.value) FROM card_custom_values v WHERE v.card_id = c.id), '{}')
    WHERE c.id = ANY(card_ids);
$$;
-- +goose StatementEnd

-- column_card_counts holds each column's figures as rows to add up: a statement that changes cards adds
-- one unfolded row per column it changes, and the periodic fold job (FoldColumnCounts) replaces a
-- column's rows by one folded row. Writers only ever insert, so concurrent card writes in one column
-- never wait for each other (one counter row per column would serialise every card create of a column
-- until commit). A column's figures are the sums of its rows. Archived cards count only in
-- archived_count; the priority and checklist counts are of active cards.
--
-- There is no foreign key to columns: its check would cost every card write a lock and a lookup (a
-- quarter of a card create). The rows of a deleted column are deleted by columns_delete_counts instead.
CREATE TABLE column_card_counts (
    column_id       uuid NOT NULL,
    folded          boolean NOT NULL DEFAULT false,
    low_count       integer NOT NULL DEFAULT 0,
    medium_count    integer NOT NULL DEFAULT 0,
    high_count      integer NOT NULL DEFAULT 0,
    archived_count  integer NOT NULL DEFAULT 0,
    checklist_total integer NOT NULL DEFAULT 0,
    checklist_done  integer NOT NULL DEFAULT 0
);
CREATE INDEX column_card_counts_column_idx ON column_card_counts (column_id);
CREATE INDEX column_card_counts_unfolded_idx ON column_card_counts (column_id) WHERE NOT folded;

-- column_card_counts_changed adds a statement's card changes to their columns' counts, one row per
-- column whose figures change: each card as it now is counts +1, as it was -1. An update counts only the
-- cards whose column, archived state, priority or checklist totals changed, so most updates (titles,
-- positions, parts) cost one join of their rows. The cards of a deleted column (its cascade) add
-- nothing.
-- +goose StatementBegin
CREATE FUNCTION column_card_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO column_card_counts (column_id, low_count, medium_count, high_count, archived_count, checklist_total, checklist_done)
        SELECT n.column_id,
               count(*) FILTER (WHERE NOT n.archived AND n.priority = 'low'),
               count(*) FILTER (WHERE NOT n.archived AND n.priority = 'medium'),
               count(*) FILTER (WHERE NOT n.archived AND n.priority = 'high'),
               count(*) FILTER (WHERE n.archived),
               coalesce(sum(n.checklist_total) FILTER (WHERE NOT n.archived), 0),
               coalesce(sum(n.checklist_done) FILTER (WHERE NOT n.archived), 0)
        FROM new_rows n GROUP BY n.column_id;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO column_card_counts (column_id, low_count, medium_count, high_count, archived_count, checklist_total, checklist_done)
        SELECT o.column_id,
               -count(*) FILTER (WHERE NOT o.archived AND o.priority = 'low'),
               -count(*) FILTER (WHERE NOT o.archived AND o.priority = 'medium'),
               -count(*) FILTER (WHERE NOT o.archived AND o.priority = 'high'),
               -count(*) FILTER (WHERE o.archived),
               -coalesce(sum(o.checklist_total) FILTER (WHERE NOT o.archived), 0),
               -coalesce(sum(o.checklist_done) FILTER (WHERE NOT o.archived), 0)
        FROM old_rows o JOIN columns col ON col.id = o.column_id GROUP BY o.column_id;
    ELSE
        INSERT INTO column_card_counts (column_id, low_count, medium_count, high_count, archived_count, checklist_total, checklist_done)
        SELECT d.* FROM (
            SELECT x.column_id,
                   coalesce(sum(x.sign) FILTER (WHERE NOT x.archived AND x.priority = 'low'), 0) AS low_count,
                   coalesce(sum(x.sign) FILTER (WHERE NOT x.archived AND x.priority = 'medium'), 0) AS medium_count,
                   coalesce(sum(x.sign) FILTER (WHERE NOT x.archived AND x.priority = 'high'), 0) AS high_count,
                   coalesce(sum(x.sign) FILTER (WHERE x.archived), 0) AS archived_count,
                   coalesce(sum(x.sign * x.checklist_total) FILTER (WHERE NOT x.archived), 0) AS checklist_total,
                   coalesce(sum(x.sign * x.checklist_done) FILTER (WHERE NOT x.archived), 0) AS checklist_done
            FROM old_rows o JOIN new_rows n ON n.id = o.id,
                 LATERAL (VALUES (o.column_id, -1, o.archived, o.priority, o.checklist_total, o.checklist_done),
                                 (n.column_id, 1, n.archived, n.priority, n.checklist_total, n.checklist_done))
                         AS x(column_id, sign, archived, priority, checklist_total, checklist_done)
            WHERE (o.column_id, o.archived, o.priority, o.checklist_total, o.checklist_done)
                  IS DISTINCT FROM (n.column_id, n.archived, n.priority, n.checklist_total, n.checklist_done)
            GROUP BY x.column_id
        ) d
        WHERE (d.low_count, d.medium_count, d.high_count, d.archived_count, d.checklist_total, d.checklist_done) <> (0, 0, 0, 0, 0, 0);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- columns_delete_counts deletes the count rows of deleted columns (a column's, a project's or a
-- workspace's delete). It runs after the column's cascade has deleted its cards.
-- +goose StatementBegin
CREATE FUNCTION columns_delete_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM column_card_counts n USING old_rows o WHERE n.column_id = o.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER columns_delete_counts AFTER DELETE ON columns REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION columns_delete_counts();
CREATE TRIGGER cards_column_counts_ins AFTER INSERT ON cards REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION column_card_counts_changed();
CREATE TRIGGER cards_column_counts_upd AFTER UPDATE ON cards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION column_card_counts_changed();
CREATE TRIGGER cards_column_counts_del AFTER DELETE ON cards REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION column_card_counts_changed();

-- Overdue cards depend on the time of the read, so they are counted, per column, from this index.
CREATE INDEX cards_column_due_idx ON cards (column_id, due_date) WHERE due_date IS NOT NULL AND NOT archived;

-- Existing cards' columns get their folded counts.
INSERT INTO column_card_counts (column_id, folded, low_count, medium_count, high_count, archived_count, checklist_total, checklist_done)
SELECT column_id, true,
       count(*) FILTER (WHERE NOT archived AND priority = 'low'),
       count(*) FILTER (WHERE NOT archived AND priority = 'medium'),
       count(*) FILTER (WHERE NOT archived AND priority = 'high'),
       count(*) FILTER (WHERE archived),
       coalesce(sum(checklist_total) FILTER (WHERE NOT archived), 0),
       coalesce(sum(checklist_done) FILTER (WHERE NOT archived), 0)
FROM cards GROUP BY column_id;

-- +goose Down
DROP INDEX cards_column_due_idx;
DROP TRIGGER cards_column_counts_del ON cards;
DROP TRIGGER cards_column_counts_upd ON cards;
DROP TRIGGER cards_column_counts_ins ON cards;
DROP TRIGGER columns_delete_counts ON columns;
DROP FUNCTION columns_delete_counts(), column_card_counts_changed();
DROP TABLE column_card_counts;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION refresh_card_parts(card_ids uuid[]) RETURNS void LANGUAGE sql AS $$
    UPDATE cards c SET
        parts_checklist = coalesce((SELECT json_agg(json_build_object('_id', i.id, 'id', i.id, 'title', i.title, 'done', i.done,
                                                                      'order', i.position) ORDER BY i.position, i.id)
                                    FROM checklist_items i WHERE i.card_id = c.id), '[]'),
        parts_progress = coalesce((SELECT (100 * count(*) FILTER (WHERE i.done) / nullif(count(*), 0))::int
                                   FROM checklist_items i WHERE i.card_id = c.id), 0),
        parts_labels = coalesce((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color) ORDER BY l.name, l.id)
                                 FROM card_labels x JOIN labels l ON l.id = x.label_id WHERE x.card_id = c.id), '[]'),
        parts_fields = coalesce((SELECT json_object_agg(v.field_id, v.value) FROM card_custom_values v WHERE v.card_id = c.id), '{}')
    WHERE c.id = ANY(card_ids);
$$;
-- +goose StatementEnd
ALTER TABLE cards DROP COLUMN checklist_done, DROP COLUMN checklist_total;
