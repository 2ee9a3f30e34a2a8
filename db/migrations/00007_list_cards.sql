-- +goose Up
-- Locks: builds an index on cards without CONCURRENTLY: writes to cards wait until it is built.
-- list_cards is the card list (queries/cards.sql, CardListFast): every card of a project, with its parts
-- kept on the row (migration 00005), by column order, then card order, then id.
--
-- It is a function for its plans. Sent as a prepared statement, the list was re-planned on every call
-- (0.25 ms, as much as running it): PostgreSQL's generic plan assumes the average project's size, and
-- one large project makes that plan a sequential scan. Here each statement keeps one generic plan that
-- walks an index: the project's columns, then each column's cards in (position, id) order, so nothing
-- is sorted either (sorting the wide rows had cost more than reading them).
CREATE INDEX cards_column_order_idx ON cards (column_id, position, id);
DROP INDEX cards_column_idx;

-- +goose StatementBegin
CREATE FUNCTION list_cards(project uuid) RETURNS SETOF cards
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET enable_bitmapscan = off AS $$
DECLARE
    col uuid;
BEGIN
    FOR col IN SELECT c.id FROM columns c WHERE c.project_id = project ORDER BY c.position, c.id LOOP
        RETURN QUERY SELECT * FROM cards WHERE column_id = col ORDER BY position, id;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION list_cards;
CREATE INDEX cards_column_idx ON cards (column_id, position);
DROP INDEX cards_column_order_idx;
