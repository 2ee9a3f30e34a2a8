-- name: CustomFieldInsert :one
INSERT INTO custom_fields (id, project_id, name, type, options)
VALUES (@id, @project_id, @name, @type, @options)
RETURNING *;

-- name: CustomFieldListByProject :many
SELECT * FROM custom_fields WHERE project_id = @project_id ORDER BY created_at, id;

-- name: CustomFieldGetForUpdate :one
-- CustomFieldGetForUpdate locks a field while its definition changes; value writers hold FOR SHARE.
SELECT * FROM custom_fields WHERE id = @id AND project_id = @project_id FOR NO KEY UPDATE;

-- name: CustomFieldListByIDsForShare :many
-- CustomFieldListByIDsForShare reads the project's fields among ids and keeps their definitions stable
-- until the values written against them commit.
SELECT * FROM custom_fields WHERE project_id = @project_id AND id = ANY(@ids::uuid[]) FOR SHARE;

-- name: CustomFieldUpdate :one
UPDATE custom_fields SET name = @name, type = @type, options = @options WHERE id = @id
RETURNING *;

-- name: CustomFieldDelete :execrows
-- CustomFieldDelete removes a field; card_custom_values' foreign key removes its values from every card.
DELETE FROM custom_fields WHERE id = @id AND project_id = @project_id;

-- name: CardCustomValueListByField :many
SELECT card_id, value FROM card_custom_values WHERE field_id = @field_id;

-- name: CardCustomValueDeleteForCards :exec
DELETE FROM card_custom_values WHERE field_id = @field_id AND card_id = ANY(@card_ids::uuid[]);

-- name: CardCustomValueUpsert :execrows
-- CardCustomValueUpsert sets a card's values from an object fieldId -> value; it counts the values
-- that actually changed.
INSERT INTO card_custom_values (card_id, field_id, value)
SELECT @card_id::uuid, e.key::uuid, e.value FROM jsonb_each(@vals::jsonb) AS e
ON CONFLICT (card_id, field_id) DO UPDATE SET value = EXCLUDED.value
WHERE card_custom_values.value IS DISTINCT FROM EXCLUDED.value;

-- name: CardCustomValueDelete :execrows
DELETE FROM card_custom_values WHERE card_id = @card_id AND field_id = ANY(@field_ids::uuid[]);
