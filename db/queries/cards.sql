-- name: CardInsert :one
-- CardInsert creates a card at the end of its column; rank is its 0-based place there.
INSERT INTO cards (id, project_id, column_id, scope_id, title, description, priority, start_date, due_date, assignee_id, created_by)
VALUES (@id, @project_id, @column_id, @scope_id, @title, @description, @priority, @start_date, @due_date, @assignee_id, @created_by)
RETURNING id;

-- name: ChecklistInsertMany :exec
INSERT INTO checklist_items (id, card_id, title, done, position)
SELECT unnest(@ids::uuid[]), @card_id, unnest(@titles::text[]), unnest(@dones::boolean[]), unnest(@positions::int[]);

-- name: CardDetailGet :one
SELECT sqlc.embed(d),
       (SELECT count(*) FROM cards c2 WHERE c2.column_id = d.column_id
          AND (c2.position, c2.id) < (d.position, d.id))::int AS rank
FROM card_details d
WHERE d.id = @id AND d.project_id = @project_id;

-- name: CardDetailList :many
SELECT sqlc.embed(d), (rank() OVER (PARTITION BY d.column_id ORDER BY d.position, d.id) - 1)::int AS rank
FROM card_details d
JOIN columns col ON col.id = d.column_id
WHERE d.project_id = @project_id
ORDER BY col.position, d.position, d.id;

-- name: CardGetForUpdate :one
SELECT * FROM cards WHERE id = @id AND project_id = @project_id FOR NO KEY UPDATE;

-- name: CardGet :one
SELECT * FROM cards WHERE id = @id AND project_id = @project_id;

-- name: CardUpdateFields :exec
UPDATE cards
SET title = @title, description = @description, priority = @priority, start_date = @start_date,
    due_date = @due_date, assignee_id = @assignee_id, archived = @archived, scope_id = @scope_id,
    updated_at = now()
WHERE id = @id;

-- name: CardColumnIDs :many
-- CardColumnIDs lists a column's cards in order, for rewriting positions after a move.
SELECT id FROM cards WHERE column_id = @column_id ORDER BY position, id;

-- name: CardSetPositions :exec
UPDATE cards SET position = v.position, column_id = @column_id, updated_at = now()
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@positions::bigint[]) AS position) AS v
WHERE cards.id = v.id;

-- name: CardDelete :execrows
DELETE FROM cards WHERE id = @id AND project_id = @project_id;

-- name: CardExistsInWorkspace :one
SELECT c.project_id FROM cards c JOIN projects p ON p.id = c.project_id
WHERE c.id = @id AND p.workspace_id = @workspace_id;
