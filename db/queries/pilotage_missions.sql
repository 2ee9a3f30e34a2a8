-- name: PilotageMissionInsert :one
INSERT INTO pilotage_missions (id, workspace_id, objective, module, status, blocked_reason, created_by, updated_by)
VALUES (@id, @workspace_id, @objective, @module, @status, @blocked_reason, @actor_id, @actor_id)
RETURNING *;

-- name: PilotageMissionList :many
SELECT * FROM pilotage_missions WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: PilotageMissionGetForUpdate :one
SELECT * FROM pilotage_missions WHERE id = @id AND workspace_id = @workspace_id FOR UPDATE;

-- name: PilotageMissionExists :one
SELECT EXISTS (SELECT 1 FROM pilotage_missions WHERE id = @id AND workspace_id = @workspace_id);

-- name: PilotageMissionUpdate :one
UPDATE pilotage_missions
SET objective = @objective, module = @module, status = @status, blocked_reason = @blocked_reason,
    updated_by = @actor_id, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: PilotageMissionDelete :one
DELETE FROM pilotage_missions WHERE id = @id AND workspace_id = @workspace_id RETURNING *;

-- name: PilotageMissionPage :many
-- PilotageMissionPage is one page of the workspace's missions in creation order: those after the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM pilotage_missions
WHERE workspace_id = @workspace_id AND (created_at, id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY created_at, id
LIMIT @lim;
