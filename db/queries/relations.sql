-- name: CardRelationInsert :one
INSERT INTO card_relations (id, project_id, card_id, target_card_id, type, created_by)
VALUES (@id, @project_id, @card_id, @target_card_id, @type, @created_by)
RETURNING *;

-- name: CardRelationListByCard :many
-- CardRelationListByCard lists the relations a card is the source or the target of.
SELECT * FROM card_relations WHERE card_id = @card_id OR target_card_id = @card_id
ORDER BY created_at, id;

-- name: CardRelationDelete :execrows
DELETE FROM card_relations WHERE id = @id AND project_id = @project_id;
