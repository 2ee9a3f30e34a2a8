-- name: PilotageTodoInsert :one
INSERT INTO pilotage_todos (id, workspace_id, label, mission_id, priority_id, status, due_date, created_by, updated_by)
VALUES (@id, @workspace_id, @label, @mission_id, @priority_id, @status, @due_date, @actor_id, @actor_id)
RETURNING *;

-- name: PilotageTodoList :many
SELECT * FROM pilotage_todos WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: PilotageTodoGetForUpdate :one
SELECT * FROM pilotage_todos WHERE id = @id AND workspace_id = @workspace_id FOR UPDATE;

-- name: PilotageTodoUpdate :one
UPDATE pilotage_todos
SET label = @label, mission_id = @mission_id, priority_id = @priority_id, status = @status, due_date = @due_date,
    updated_by = @actor_id, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: PilotageTodoDelete :one
DELETE FROM pilotage_todos WHERE id = @id AND workspace_id = @workspace_id RETURNING *;

-- name: PilotageTodoPage :many
-- PilotageTodoPage is one page of the workspace's todos in creation order: those after the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM pilotage_todos
WHERE workspace_id = @workspace_id AND (created_at, id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY created_at, id
LIMIT @lim;
