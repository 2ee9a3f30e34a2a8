-- +goose Up
-- Locks: rewrites every card (UPDATE through refresh_card_parts) in one transaction: writes to cards wait
-- until it commits, which on a large installation is minutes.
-- The card list is the hottest read. Each card keeps its checklist, labels and custom values as JSON on
-- its own row, rebuilt by statement-level triggers whenever one of those parts changes (any path:
-- requests, imports, cascades), so listing a project reads one index range and no child table.
ALTER TABLE cards
    ADD COLUMN parts_checklist json NOT NULL DEFAULT '[]',
    ADD COLUMN parts_progress  integer NOT NULL DEFAULT 0,
    ADD COLUMN parts_labels    json NOT NULL DEFAULT '[]',
    ADD COLUMN parts_fields    json NOT NULL DEFAULT '{}';

-- +goose StatementBegin
CREATE FUNCTION refresh_card_parts(card_ids uuid[]) RETURNS void LANGUAGE sql AS $$
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

-- +goose StatementBegin
CREATE FUNCTION card_parts_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_card_parts(ARRAY(SELECT DISTINCT card_id FROM new_rows));
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION card_parts_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_card_parts(ARRAY(SELECT DISTINCT card_id FROM old_rows));
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION card_parts_label_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refresh_card_parts(ARRAY(SELECT DISTINCT x.card_id FROM card_labels x JOIN new_rows n ON n.id = x.label_id));
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER checklist_items_ins AFTER INSERT ON checklist_items REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_new();
CREATE TRIGGER checklist_items_upd AFTER UPDATE ON checklist_items REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_new();
CREATE TRIGGER checklist_items_del AFTER DELETE ON checklist_items REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_old();
CREATE TRIGGER card_labels_ins AFTER INSERT ON card_labels REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_new();
CREATE TRIGGER card_labels_del AFTER DELETE ON card_labels REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_old();
CREATE TRIGGER card_custom_values_ins AFTER INSERT ON card_custom_values REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_new();
CREATE TRIGGER card_custom_values_upd AFTER UPDATE ON card_custom_values REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_new();
CREATE TRIGGER card_custom_values_del AFTER DELETE ON card_custom_values REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_old();
CREATE TRIGGER labels_upd AFTER UPDATE ON labels REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION card_parts_label_changed();

-- Existing cards get their parts once.
SELECT refresh_card_parts(ARRAY(SELECT id FROM cards));

-- +goose Down
DROP TRIGGER labels_upd ON labels;
DROP TRIGGER card_custom_values_del ON card_custom_values;
DROP TRIGGER card_custom_values_upd ON card_custom_values;
DROP TRIGGER card_custom_values_ins ON card_custom_values;
DROP TRIGGER card_labels_del ON card_labels;
DROP TRIGGER card_labels_ins ON card_labels;
DROP TRIGGER checklist_items_del ON checklist_items;
DROP TRIGGER checklist_items_upd ON checklist_items;
DROP TRIGGER checklist_items_ins ON checklist_items;
DROP FUNCTION card_parts_label_changed(), card_parts_old(), card_parts_new(), refresh_card_parts(uuid[]);
ALTER TABLE cards DROP COLUMN parts_fields, DROP COLUMN parts_labels, DROP COLUMN parts_progress, DROP COLUMN parts_checklist;
