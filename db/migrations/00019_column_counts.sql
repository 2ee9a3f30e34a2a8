-- +goose Up
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

-- column_card_counts holds each column's figures, split over up to 8 shards: a writing transaction adds
-- its deltas to the shard of its transaction id, so concurrent card writes in one column rarely wait for
-- each other (one row per column would serialise every card create of a column until commit). A
-- column's figures are the sums over its shards. Archived cards count only in archived_count; the
-- priority and checklist counts are of active cards.
CREATE TABLE column_card_counts (
    column_id       uuid NOT NULL REFERENCES columns (id) ON DELETE CASCADE,
    shard           smallint NOT NULL CHECK (shard BETWEEN 0 AND 7),
    low_count       integer NOT NULL DEFAULT 0,
    medium_count    integer NOT NULL DEFAULT 0,
    high_count      integer NOT NULL DEFAULT 0,
    archived_count  integer NOT NULL DEFAULT 0,
    checklist_total integer NOT NULL DEFAULT 0,
    checklist_done  integer NOT NULL DEFAULT 0,
    PRIMARY KEY (column_id, shard)
);

-- add_column_card_counts adds signed cards (sign 1: a card as it now is; -1: as it was) to their
-- columns' counters, in the shard of the transaction. Columns deleted in this transaction are skipped
-- (their counters went with them). The counters are upserted in column order, so two statements never
-- lock them in opposite orders.
-- +goose StatementBegin
CREATE FUNCTION add_column_card_counts(column_ids uuid[], signs int[], archived boolean[], priorities text[],
                                       checklist_totals int[], checklist_dones int[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO column_card_counts AS t (column_id, shard, low_count, medium_count, high_count, archived_count,
                                         checklist_total, checklist_done)
    SELECT d.column_id, (txid_current() % 8)::smallint,
           coalesce(sum(d.sign) FILTER (WHERE NOT d.archived AND d.priority = 'low'), 0),
           coalesce(sum(d.sign) FILTER (WHERE NOT d.archived AND d.priority = 'medium'), 0),
           coalesce(sum(d.sign) FILTER (WHERE NOT d.archived AND d.priority = 'high'), 0),
           coalesce(sum(d.sign) FILTER (WHERE d.archived), 0),
           coalesce(sum(d.sign * d.checklist_total) FILTER (WHERE NOT d.archived), 0),
           coalesce(sum(d.sign * d.checklist_done) FILTER (WHERE NOT d.archived), 0)
    FROM unnest(column_ids, signs, archived, priorities, checklist_totals, checklist_dones)
         AS d(column_id, sign, archived, priority, checklist_total, checklist_done)
    JOIN columns col ON col.id = d.column_id
    GROUP BY d.column_id
    ORDER BY d.column_id
    ON CONFLICT (column_id, shard) DO UPDATE SET
        low_count = t.low_count + excluded.low_count,
        medium_count = t.medium_count + excluded.medium_count,
        high_count = t.high_count + excluded.high_count,
        archived_count = t.archived_count + excluded.archived_count,
        checklist_total = t.checklist_total + excluded.checklist_total,
        checklist_done = t.checklist_done + excluded.checklist_done;
$$;
-- +goose StatementEnd

-- column_card_counts_changed adds a statement's card changes to their columns' counters: each card as it
-- now is counts +1, as it was -1. An update counts only the cards whose column, archived state, priority
-- or checklist totals changed, so most updates (titles, positions, parts) cost one join of their rows.
-- +goose StatementBegin
CREATE FUNCTION column_card_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM add_column_card_counts(array_agg(n.column_id), array_agg(1), array_agg(n.archived), array_agg(n.priority),
                                       array_agg(n.checklist_total), array_agg(n.checklist_done))
        FROM new_rows n;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM add_column_card_counts(array_agg(o.column_id), array_agg(-1), array_agg(o.archived), array_agg(o.priority),
                                       array_agg(o.checklist_total), array_agg(o.checklist_done))
        FROM old_rows o;
    ELSE
        PERFORM add_column_card_counts(array_agg(x.column_id), array_agg(x.sign), array_agg(x.archived), array_agg(x.priority),
                                       array_agg(x.checklist_total), array_agg(x.checklist_done))
        FROM old_rows o JOIN new_rows n ON n.id = o.id,
             LATERAL (VALUES (o.column_id, -1, o.archived, o.priority, o.checklist_total, o.checklist_done),
                             (n.column_id, 1, n.archived, n.priority, n.checklist_total, n.checklist_done))
                     AS x(column_id, sign, archived, priority, checklist_total, checklist_done)
        WHERE (o.column_id, o.archived, o.priority, o.checklist_total, o.checklist_done)
              IS DISTINCT FROM (n.column_id, n.archived, n.priority, n.checklist_total, n.checklist_done);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER cards_column_counts_ins AFTER INSERT ON cards REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION column_card_counts_changed();
CREATE TRIGGER cards_column_counts_upd AFTER UPDATE ON cards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION column_card_counts_changed();
CREATE TRIGGER cards_column_counts_del AFTER DELETE ON cards REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION column_card_counts_changed();

-- Overdue cards depend on the time of the read, so they are counted, per column, from this index.
CREATE INDEX cards_column_due_idx ON cards (column_id, due_date) WHERE due_date IS NOT NULL AND NOT archived;

-- Existing cards' columns get their counters (in shard 0).
INSERT INTO column_card_counts (column_id, shard, low_count, medium_count, high_count, archived_count, checklist_total, checklist_done)
SELECT column_id, 0,
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
DROP FUNCTION column_card_counts_changed(), add_column_card_counts(uuid[], int[], boolean[], text[], int[], int[]);
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
