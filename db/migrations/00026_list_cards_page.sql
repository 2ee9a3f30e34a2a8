-- +goose Up
-- list_cards_page is one page of the card list (db/cards.go, EachCard): a project's cards by column
-- order, then card order, then id, as list_cards (migration 00007) gives them, from the position after
-- the keyset (after_col_pos, after_col, after_pos, after_card) of the previous page's last card, at most
-- lim of them, archived ones only, active ones only or both (only_archived null).
--
-- The keyset walks the same indexes as list_cards: the project's columns from the cursor's column on
-- (columns_project_idx), then each column's cards in (position, id) order (cards_column_order_idx),
-- starting after the cursor's card in the cursor's column. A first page passes the lowest keyset, so
-- one generic plan serves every page; nothing is sorted and no OFFSET is counted through. The loop
-- stops as soon as lim cards are read, so a small page of a large project reads a small part of it.
-- A column moved or deleted between two pages takes its place in the order the next page sees.
-- +goose StatementBegin
CREATE FUNCTION list_cards_page(project uuid, only_archived boolean, after_col_pos integer, after_col uuid,
                                after_pos bigint, after_card uuid, lim integer) RETURNS SETOF cards
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET enable_bitmapscan = off AS $$
DECLARE
    col  uuid;
    left_ integer := lim;
    got  integer;
BEGIN
    FOR col IN SELECT c.id FROM columns c
               WHERE c.project_id = project AND (c.position, c.id) >= (after_col_pos, after_col)
               ORDER BY c.position, c.id LOOP
        IF col = after_col THEN
            RETURN QUERY SELECT * FROM cards
                WHERE column_id = col AND (position, id) > (after_pos, after_card)
                  AND (only_archived IS NULL OR archived = only_archived)
                ORDER BY position, id LIMIT left_;
        ELSE
            RETURN QUERY SELECT * FROM cards
                WHERE column_id = col AND (only_archived IS NULL OR archived = only_archived)
                ORDER BY position, id LIMIT left_;
        END IF;
        GET DIAGNOSTICS got = ROW_COUNT;
        left_ := left_ - got;
        EXIT WHEN left_ <= 0;
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION list_cards_page;
