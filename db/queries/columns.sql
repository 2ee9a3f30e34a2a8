-- name: ColumnInsert :one
INSERT INTO columns (id, project_id, name, position)
VALUES (@id, @project_id, @name, (SELECT coalesce(max(position) + 1, 0) FROM columns WHERE project_id = @project_id))
RETURNING *;

-- name: ColumnListByProject :many
SELECT * FROM columns WHERE project_id = @project_id ORDER BY position, id;

-- name: ColumnGet :one
SELECT * FROM columns WHERE id = @id AND project_id = @project_id;

-- name: ColumnLock :one
-- ColumnLock serialises moves within a column (NO KEY UPDATE: card inserts stay unblocked).
SELECT id FROM columns WHERE id = @id AND project_id = @project_id FOR NO KEY UPDATE;

-- name: ColumnRename :exec
UPDATE columns SET name = @name WHERE id = @id;

-- name: ColumnSetPositions :exec
UPDATE columns SET position = v.position
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@positions::int[]) AS position) AS v
WHERE columns.id = v.id;

-- name: ColumnDelete :execrows
DELETE FROM columns WHERE id = @id AND project_id = @project_id;

-- name: ColumnFirst :one
SELECT * FROM columns WHERE project_id = @project_id ORDER BY position, id LIMIT 1;
