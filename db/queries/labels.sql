-- name: LabelInsert :one
INSERT INTO labels (id, project_id, name, color) VALUES (@id, @project_id, @name, @color)
RETURNING *;
