-- name: PilotageDecisionInsert :one
INSERT INTO pilotage_decisions (id, workspace_id, title, impact, created_by, updated_by)
VALUES (@id, @workspace_id, @title, @impact, @actor_id, @actor_id)
RETURNING *;

-- name: PilotageDecisionList :many
SELECT * FROM pilotage_decisions WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: PilotageDecisionGetForUpdate :one
SELECT * FROM pilotage_decisions WHERE id = @id AND workspace_id = @workspace_id FOR UPDATE;

-- name: PilotageDecisionUpdate :one
UPDATE pilotage_decisions
SET title = @title, impact = @impact, updated_by = @actor_id, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: PilotageDecisionDelete :one
DELETE FROM pilotage_decisions WHERE id = @id AND workspace_id = @workspace_id RETURNING *;

-- name: PilotageDecisionPage :many
-- PilotageDecisionPage is one page of the workspace's decisions in creation order: those after the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM pilotage_decisions
WHERE workspace_id = @workspace_id AND (created_at, id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY created_at, id
LIMIT @lim;
