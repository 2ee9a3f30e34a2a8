-- name: LabelInsert :one
INSERT INTO labels (id, project_id, name, color) VALUES (@id, @project_id, @name, @color)
RETURNING *;

-- name: LabelListByProject :many
SELECT * FROM labels WHERE project_id = @project_id ORDER BY name, id;

-- name: LabelGet :one
SELECT * FROM labels WHERE id = @id AND project_id = @project_id;

-- name: LabelUpdate :one
UPDATE labels SET name = coalesce(sqlc.narg('name'), name), color = coalesce(sqlc.narg('color'), color)
WHERE id = @id AND project_id = @project_id
RETURNING *;

-- name: LabelDelete :execrows
-- LabelDelete removes a label; card_labels' foreign key takes it off every card.
DELETE FROM labels WHERE id = @id AND project_id = @project_id;

-- name: CardLabelAdd :execrows
INSERT INTO card_labels (card_id, label_id) VALUES (@card_id, @label_id) ON CONFLICT DO NOTHING;

-- name: CardLabelRemove :execrows
DELETE FROM card_labels WHERE card_id = @card_id AND label_id = @label_id;
