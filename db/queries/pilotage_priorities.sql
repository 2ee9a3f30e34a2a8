-- name: PilotagePriorityInsert :one
INSERT INTO pilotage_priorities (id, workspace_id, label, module, active, created_by, updated_by)
VALUES (@id, @workspace_id, @label, @module, @active, @actor_id, @actor_id)
RETURNING *;

-- name: PilotagePriorityList :many
SELECT * FROM pilotage_priorities WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: PilotagePriorityGetForUpdate :one
SELECT * FROM pilotage_priorities WHERE id = @id AND workspace_id = @workspace_id FOR UPDATE;

-- name: PilotagePriorityExists :one
SELECT EXISTS (SELECT 1 FROM pilotage_priorities WHERE id = @id AND workspace_id = @workspace_id);

-- name: PilotagePriorityUpdate :one
UPDATE pilotage_priorities
SET label = @label, module = @module, active = @active, updated_by = @actor_id, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: PilotagePriorityDelete :one
DELETE FROM pilotage_priorities WHERE id = @id AND workspace_id = @workspace_id RETURNING *;

-- name: PilotagePriorityPage :many
-- PilotagePriorityPage is one page of the workspace's priorities in creation order: those after the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM pilotage_priorities
WHERE workspace_id = @workspace_id AND (created_at, id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY created_at, id
LIMIT @lim;
